"""What `doctor` reports: one finding per check, each with the fix when something is wrong."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Finding", "Report", "Status"]

Status = Literal["ok", "warn", "fail", "info"]


@dataclass(frozen=True, slots=True)
class Finding:
    """The outcome of one check.

    Attributes:
        check: What was checked, e.g. `required tool_choice`.
        status: `ok`, `warn` (works, but worth fixing), `fail` (broken) or `info`.
        detail: What was observed.
        fix: What to change (a launch flag, a client option), when status is warn/fail.
    """

    check: str
    status: Status
    detail: str
    fix: str = ""


@dataclass(slots=True)
class Report:
    """Every finding about one server.

    Attributes:
        base_url: The server's `/v1` URL.
        model: The model name probed.
        findings: In the order the checks ran.
    """

    base_url: str
    model: str | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No check failed."""
        return not any(f.status == "fail" for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 when every check passed or only warned, 1 when one failed."""
        return 0 if self.ok else 1

    def status_of(self, check: str) -> Status | None:
        """The status of the named check, or None when it did not run."""
        return next((f.status for f in self.findings if f.check == check), None)

    def add(self, check: str, status: Status, detail: str, fix: str = "") -> Finding:
        """Record a finding and return it."""
        finding = Finding(check, status, detail, fix)
        self.findings.append(finding)
        return finding
