"""The balancer on its own: least outstanding, turns among equals, health, trials, pins."""

from __future__ import annotations

import threading

import pytest

from toolcall_sdk import BalancePolicy, InvalidArgumentError
from toolcall_sdk._balancer import Balancer, Lease, Pin

URLS = ["http://a/v1", "http://b/v1", "http://c/v1"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(clock: Clock | None = None, **policy: object) -> Balancer:
    return Balancer(URLS, BalancePolicy(clock=clock or Clock(), **policy))  # type: ignore[arg-type]


def until_chosen(balancer: Balancer, server: int) -> Lease:
    """Send (and answer) requests until one goes to `server`; it comes within a round."""
    for _ in range(len(balancer)):
        lease = balancer.acquire()
        if lease.server == server:
            return lease
        balancer.release(lease, ok=True)
    raise AssertionError(f"server {server} was not chosen within a round")


def test_equally_busy_servers_take_turns() -> None:
    balancer = make()
    chosen = []
    for _ in range(6):
        lease = balancer.acquire()
        chosen.append(lease.server)
        balancer.release(lease, ok=True)
    assert chosen == [0, 1, 2, 0, 1, 2]


def test_the_least_busy_server_is_chosen() -> None:
    balancer = make()
    held = [balancer.acquire() for _ in range(3)]  # one outstanding on each
    balancer.release(held[1], ok=True)
    assert balancer.acquire().server == 1  # nothing outstanding on b
    # All equal again: the turn goes on after b, then the least busy (a).
    assert [balancer.acquire().server for _ in range(2)] == [2, 0]
    assert [s.outstanding for s in balancer.states()] == [2, 1, 2]
    assert balancer.acquire().server == 1


def test_a_failed_server_is_skipped_until_its_cooldown_then_tried_once() -> None:
    clock = Clock()
    balancer = make(clock, cooldown=5.0)
    lease = balancer.acquire()
    assert lease.server == 0
    balancer.release(lease, ok=False)
    assert balancer.states()[0].healthy is False
    assert balancer.states()[0].retry_in == 5.0

    picks = []
    for _ in range(4):
        lease = balancer.acquire()
        picks.append(lease.server)
        balancer.release(lease, ok=True)
    assert 0 not in picks

    clock.now += 5.0
    trial = until_chosen(balancer, 0)
    assert trial.trial
    # While the trial is out, no other request goes to the server.
    others = [balancer.acquire().server for _ in range(4)]
    assert 0 not in others
    balancer.release(trial, ok=True)
    state = balancer.states()[0]
    assert (state.healthy, state.failures, state.retry_in) == (True, 0, None)


def test_a_failed_trial_starts_another_cooldown() -> None:
    clock = Clock()
    balancer = make(clock, cooldown=5.0)
    balancer.release(balancer.acquire(), ok=False)
    clock.now += 6.0
    trial = until_chosen(balancer, 0)
    assert trial.trial
    balancer.release(trial, ok=False)
    state = balancer.states()[0]
    assert (state.healthy, state.failures, state.retry_in) == (False, 2, 5.0)


def test_an_answer_sent_before_the_failure_does_not_restore_health() -> None:
    balancer = make()
    early = balancer.acquire()  # server 0, sent while healthy
    failing = balancer.acquire(tried=[1, 2])  # server 0 again
    balancer.release(failing, ok=False)
    balancer.release(early, ok=True)
    assert balancer.states()[0].healthy is False


def test_no_sign_either_way_leaves_health_alone() -> None:
    balancer = make()
    balancer.release(balancer.acquire(), ok=None)  # a 4xx or a cancelled request
    assert all(s.healthy and s.outstanding == 0 for s in balancer.states())


def test_a_request_avoids_the_servers_it_tried() -> None:
    balancer = make()
    assert balancer.acquire(tried=[0, 1]).server == 2
    assert balancer.has_untried([0, 1])
    assert not balancer.has_untried([0, 1, 2])


def test_when_nothing_is_usable_a_request_still_goes_out() -> None:
    balancer = make()
    for server in range(3):
        balancer.release(balancer.acquire(tried=[i for i in range(3) if i != server]), ok=False)
    assert not any(s.healthy for s in balancer.states())
    lease = balancer.acquire(tried=[0])
    assert lease.server in (1, 2)
    assert lease.trial  # its answer brings the server back
    balancer.release(lease, ok=True)
    assert balancer.states()[lease.server].healthy
    # Every server tried by this request: it still goes somewhere.
    assert balancer.acquire(tried=[0, 1, 2]).server in (0, 1, 2)


def test_a_pin_keeps_a_healthy_server_and_follows_a_move() -> None:
    balancer = make()
    pin = balancer.pin()
    assert isinstance(pin, Pin)
    first = balancer.acquire(pin=pin)
    balancer.release(first, ok=True)
    balancer.acquire()  # others get busy elsewhere; the pin does not care
    assert [balancer.acquire(pin=pin).server for _ in range(3)] == [first.server] * 3

    balancer.release(balancer.acquire(pin=pin), ok=False)  # its server fails
    moved = balancer.acquire(tried=[first.server], pin=pin)
    assert moved.server != first.server
    assert pin.server == moved.server


def test_no_pin_without_call_affinity() -> None:
    assert make(affinity="none").pin() is None
    assert make().pin() is not None


def test_outstanding_counts_stay_exact_across_threads() -> None:
    balancer = make()

    def work() -> None:
        for _ in range(500):
            balancer.release(balancer.acquire(), ok=True)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    states = balancer.states()
    assert [s.outstanding for s in states] == [0, 0, 0]
    assert sum(s.sent for s in states) == 4000


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"affinity": "sticky"}, "affinity must be one of 'call', 'none'"),
        ({"cooldown": -1.0}, "cooldown must be a number of seconds >= 0"),
        ({"cooldown": float("inf")}, "cooldown must be a number of seconds >= 0"),
        ({"clock": 3}, "clock must be a function"),
    ],
)
def test_bad_policies_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        BalancePolicy(**options)  # type: ignore[arg-type]
