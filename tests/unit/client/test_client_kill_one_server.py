"""Kill one of three local servers during 1,000 calls, then bring it back.

The scenario is `benchmarks/servers_kill_one.py` (which prints the same counts): three
served scripted models, `AsyncToolCallClient.run()` 32 calls at a time, the second server
stopped at 20% of the calls (requests waiting on it are cut, new connections refused),
its cool-down passed while it is still down, then served again on its port at 50%.
"""

from __future__ import annotations

import asyncio

from benchmarks.servers_kill_one import kill_one_of_three


def test_no_call_is_lost_and_none_runs_twice_when_a_server_dies_and_comes_back() -> None:
    report = asyncio.run(kill_one_of_three(calls=1000, concurrency=32))

    assert report.lost == 0
    assert report.executed_twice == 0
    assert report.executions == 1000
    assert report.resent >= 1  # the kill did cut requests, and they went elsewhere
    # All three shared the work before the kill. While down, the dead one received
    # nothing: it was skipped, and its one trial after the cool-down was refused before
    # it could be received (at most that trial, should it land just as the server is
    # back) and went elsewhere.
    assert min(report.before_kill) > 0
    assert report.while_down[1] <= 1
    assert min(report.while_down[0], report.while_down[2]) > 0
    # Back on its port, it is used again.
    assert report.after_restart[1] > 0
    assert all(state.healthy and state.outstanding == 0 for state in report.servers)
