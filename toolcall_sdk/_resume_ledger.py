"""Which paused runs were resumed: a state is resumed at most once.

`resume()` claims the state's id in the client's ledger after checking the state and the
approvals and before anything of it runs; a claim that is not the first raises
`AlreadyResumed` and runs nothing. Denials are claimed like approvals: a state whose calls a
person refused cannot be resumed again to approve them.

A ledger is anything with `claim(state_id) -> bool` that is atomic: of any number of claims
of one id, from any threads or processes that share the ledger, exactly one returns True.
`InMemoryResumeLedger` (the default, one per client) holds the ids in this process only;
`SQLiteResumeLedger(path)` keeps them in a SQLite file, so they survive a restart and are
shared by every process that opens the same file.

A claim waits no longer than what is left of the call's `deadline=`: the client passes that
as `timeout=` to a ledger whose `claim` takes one (both of these do; `claim_within`). A
claim that gives up raises and records nothing, so the state stays unused. A ledger whose
`claim` takes no `timeout` is called as the protocol says and bounds its own waits: the
client cannot stop a claim midway without risking a state recorded after it reported none.
"""

from __future__ import annotations

import inspect
import os
import sqlite3
import threading
import time
from contextlib import closing
from typing import Protocol, cast, runtime_checkable

__all__ = ["InMemoryResumeLedger", "ResumeLedger", "SQLiteResumeLedger", "claim_within"]

# How long a claim waits for another process's write to the same file before it fails: a
# claim holds the lock for one small insert, so waiting longer means something is stuck.
_BUSY_TIMEOUT_S = 30.0
_CREATE = (
    "CREATE TABLE IF NOT EXISTS resumed_states ("
    "state_id TEXT PRIMARY KEY NOT NULL, resumed_at REAL NOT NULL)"
)
# The primary key makes the insert the atomic test-and-set: one writer adds the row, every
# other one finds it there and inserts nothing.
_CLAIM = "INSERT OR IGNORE INTO resumed_states (state_id, resumed_at) VALUES (?, ?)"


@runtime_checkable
class ResumeLedger(Protocol):
    """Where a client records the paused runs it resumed (`resume_ledger=`).

    A `claim` may also take a keyword `timeout` (seconds, or None): the client then passes
    what is left of the call's deadline, and the claim must give up, recording nothing,
    once that much time has passed.
    """

    def claim(self, state_id: str) -> bool:
        """Record `state_id` as resumed.

        Must be atomic: of concurrent claims of one id, exactly one returns True.

        Args:
            state_id: `ApprovalRequired.state_id` of the state being resumed.

        Returns:
            True for the first claim of `state_id`; False for every later one.
        """
        ...


class _TimedLedger(Protocol):
    # A ledger whose claim can be told how long it may wait (see the module doc).
    def claim(self, state_id: str, *, timeout: float | None = None) -> bool: ...


def claim_within(ledger: ResumeLedger, state_id: str, seconds: float) -> bool:
    """`ledger.claim(state_id)`, waiting at most `seconds` where the ledger can be told so.

    Raises:
        Exception: Whatever the ledger raised (for the built-ins, `TimeoutError` or
            `sqlite3.OperationalError` when the wait ran out); nothing was recorded.
    """
    if _takes_timeout(ledger):
        return cast(_TimedLedger, ledger).claim(state_id, timeout=max(seconds, 0.0))
    return ledger.claim(state_id)


def _takes_timeout(ledger: ResumeLedger) -> bool:
    try:
        parameters = inspect.signature(ledger.claim).parameters
    except (TypeError, ValueError):  # a callable whose signature cannot be read
        return False
    found = parameters.get("timeout")
    return found is not None and found.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


class InMemoryResumeLedger:
    """Resumed states held in this process (the client's default); safe across threads.

    Forgotten when the process ends, and not shared between clients unless the same
    object is given to each (`resume_ledger=ledger`).
    """

    def __init__(self) -> None:
        self._claimed: set[str] = set()
        self._lock = threading.Lock()

    def claim(self, state_id: str, *, timeout: float | None = None) -> bool:
        """Record `state_id`; True the first time only.

        Args:
            state_id: The state's id.
            timeout: Seconds to wait for another thread's claim (None: as long as it takes).

        Raises:
            TimeoutError: Another claim held the ledger past `timeout`; nothing recorded.
        """
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise TimeoutError(f"the in-memory resume ledger stayed busy for {timeout:g} s")
        try:
            if state_id in self._claimed:
                return False
            self._claimed.add(state_id)
            return True
        finally:
            self._lock.release()

    def __contains__(self, state_id: object) -> bool:
        with self._lock:
            return state_id in self._claimed


class SQLiteResumeLedger:
    """Resumed states in a SQLite file (stdlib `sqlite3`): durable, shared by processes.

    Each claim opens the file, inserts the id under its primary key in one transaction and
    closes it, so one object may be used from any thread, and any number of processes may
    open the same file. Put the file on a local disk: SQLite's locking is not reliable on
    network file systems.

    Args:
        path: The database file; created, with its table, when missing.
        timeout: Seconds a claim waits for another writer of the same file (a claim made
            by a client waits less when less is left of the call's `deadline=`).
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = _BUSY_TIMEOUT_S) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        with closing(self._connect()) as connection, connection:
            connection.execute(_CREATE)

    def claim(self, state_id: str, *, timeout: float | None = None) -> bool:
        """Record `state_id`; True the first time only, whichever process asked first.

        Args:
            state_id: The state's id.
            timeout: Seconds to wait for another writer, when less than the ledger's own
                `timeout` (the client passes what is left of the call's deadline).

        Raises:
            sqlite3.OperationalError: The file stayed locked past the wait ("database is
                locked"); the insert was rolled back, nothing recorded.
        """
        wait = self.timeout if timeout is None else min(self.timeout, timeout)
        with closing(self._connect(wait)) as connection, connection:
            inserted = connection.execute(_CLAIM, (state_id, time.time())).rowcount
        return inserted == 1

    def __contains__(self, state_id: object) -> bool:
        with closing(self._connect()) as connection:
            row = connection.execute(
                "SELECT 1 FROM resumed_states WHERE state_id = ?", (str(state_id),)
            ).fetchone()
        return row is not None

    def __repr__(self) -> str:
        return f"SQLiteResumeLedger({self.path!r})"

    def _connect(self, timeout: float | None = None) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=self.timeout if timeout is None else timeout)
