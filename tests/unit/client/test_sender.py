"""The sender, driven by hand: it is a generator of effects, so a test is its driver.

No server and no sockets: each test answers the sender's `Open`, `Read` and `Sleep` the
way a network would, and asserts the effects it asked for, in order.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest

from toolcall_sdk._balancer import BalancePolicy, Balancer
from toolcall_sdk._body import Limits
from toolcall_sdk._exchange import Exchange
from toolcall_sdk._pipeline import Answer
from toolcall_sdk._sender import Open, Read, SendEffect, Show, Sleep, send
from toolcall_sdk._streaming import AnswerEvents
from toolcall_sdk._transport import RetryPolicy
from toolcall_sdk.errors import DeadlineExceededError, ServerConnectionError, ServerUnavailableError

URLS = ["http://a/v1", "http://b/v1"]
BODY = json.dumps(
    {"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
).encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _exchange(balancer: Balancer, *, stream: bool = False, live: bool = False) -> Exchange:
    return Exchange(
        kwargs={"body": {}, "options": {}},
        stage="call",
        stream=stream,
        events=AnswerEvents(attempt=1, content_format=None, schemas=None) if live else None,
        balancer=balancer,
        pin=None,
        # A clock that never moves: no deadline passes unless a test says so.
        limits=Limits(deadline_at=100.0, deadline_s=100.0, clock=lambda: 0.0),
    )


def _status(code: int) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://a/v1/chat/completions")
    return openai.APIStatusError("boom", response=httpx2.Response(code, request=request), body=None)


def _drive(steps: Any, answers: list[Any]) -> tuple[list[SendEffect], Any]:
    """Answer each effect with the next of `answers` (an exception is thrown in)."""
    effects: list[SendEffect] = []
    effect = next(steps)
    try:
        while True:
            effects.append(effect)
            reply = None if isinstance(effect, Show) else answers.pop(0)
            effect = steps.throw(reply) if isinstance(reply, BaseException) else steps.send(reply)
    except StopIteration as done:
        return effects, done.value


def _policy(**kwargs: Any) -> RetryPolicy:
    return RetryPolicy(jitter=0.0, **kwargs)


def test_a_body_is_opened_read_to_its_end_and_answered() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    steps = send(_exchange(balancer), retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    effects, answer = _drive(steps, [None, BODY[:10], BODY[10:], b""])
    assert effects == [
        Open(0, 5.0, {"body": {}, "options": {}}, 100.0),
        Read(100.0),
        Read(100.0),
        Read(100.0),
    ]
    assert isinstance(answer, Answer)
    assert answer.message["content"] == "hi"
    assert balancer.states()[0].outstanding == 0


def test_a_503_is_retried_after_the_backoff_on_the_same_server() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    steps = send(_exchange(balancer), retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    effects, _ = _drive(steps, [_status(503), None, None, BODY, b""])
    assert [type(e).__name__ for e in effects] == ["Open", "Sleep", "Open", "Read", "Read"]
    assert effects[1] == Sleep(0.5)
    assert balancer.states()[0].outstanding == 0


def test_a_failed_server_is_left_at_once_for_one_not_tried() -> None:
    balancer = Balancer(URLS, BalancePolicy())
    steps = send(_exchange(balancer), retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    effects, _ = _drive(steps, [_status(502), None, None, BODY, b""])
    opens = [e for e in effects if isinstance(e, Open)]
    assert [o.server for o in opens] == [0, 1]
    assert Sleep(0.0) in effects  # failover waits for nothing
    assert [s.healthy for s in balancer.states()] == [False, True]
    assert [s.outstanding for s in balancer.states()] == [0, 0]


def test_attempts_are_bounded_and_the_error_is_typed() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    steps = send(
        _exchange(balancer), retry=_policy(attempts=2), timeout=5.0, base_urls=URLS, model="m"
    )
    with pytest.raises(ServerUnavailableError, match="after 2 tries"):
        _drive(steps, [_status(503), None, _status(503)])


def test_a_read_past_the_deadline_is_the_deadline_and_not_retried() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    steps = send(_exchange(balancer), retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    with pytest.raises(DeadlineExceededError, match="waiting for the server's next bytes"):
        _drive(steps, [None, BODY[:10], TimeoutError()])
    assert balancer.states()[0].outstanding == 0


def test_a_live_stream_shows_its_events_and_is_not_retried_once_open() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    exchange = _exchange(balancer, stream=True, live=True)
    steps = send(exchange, retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    cut = httpx2.ReadError("cut", request=httpx2.Request("POST", "http://a/v1/chat/completions"))
    with pytest.raises(ServerConnectionError):
        _drive(steps, [None, _chunk({"content": "Hel"}), cut])
    assert exchange.tries == 1
    assert balancer.states()[0].outstanding == 0


def test_a_live_stream_left_early_releases_its_server() -> None:
    balancer = Balancer(URLS[:1], BalancePolicy())
    exchange = _exchange(balancer, stream=True, live=True)
    steps = send(exchange, retry=_policy(), timeout=5.0, base_urls=URLS, model="m")
    assert isinstance(next(steps), Open)
    assert isinstance(steps.send(None), Read)
    assert isinstance(steps.send(_chunk({"content": "Hello"})), Show)
    assert balancer.states()[0].outstanding == 1
    steps.close()  # the consumer stopped reading
    assert balancer.states()[0].outstanding == 0
