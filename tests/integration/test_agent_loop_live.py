"""`examples/agent_loop.py` against the real demo model (what `launch --demo` serves).

The example runs as users run it (`TOOLCALL_BASE_URL=... python examples/agent_loop.py`),
with its own router (`until_sent`: call until the invoice is sent; no router request): the
first step forced, the second under `tool_choice="auto"`, the last a plain answer asked
without the tools. At temperature 0 the 0.5B looks Acme up, asks to send the invoice (the
run pauses; the example approves), and the run ends with that plain answer. The 0.5B first
writes the call again there, as JSON text; asked once more, told the results are in the
conversation, it answers with a few words (measured: docs/agents.md), so the test asserts
that the run ends with a text step, not what the text says.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from toolcall_sdk.launcher import Server

from .conftest import MODEL

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_loop.py"


def run_example(base_url: str) -> list[str]:
    """Run the example against `base_url`; its output lines."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={
            # The example's own router, whatever the environment says.
            **{k: v for k, v in os.environ.items() if k != "TOOLCALL_ROUTER"},
            "TOOLCALL_BASE_URL": base_url,
            "TOOLCALL_MODEL": MODEL,
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout.splitlines()


def check_example(base_url: str) -> None:
    """What the model must do: the look-up first, the invoice sent once approved, then a
    text answer. Each step is forced until the invoice is sent, and the 0.5B may look the
    customer up again before sending, so the step numbers are not fixed."""
    lines = run_example(base_url)
    steps = [line for line in lines if re.match(r"step \d+: ", line)]
    assert steps[0] == "step 1: [('find_customer', 'CUS-000042')]", lines
    assert any(re.match(r"step \d+ waits: send_invoice\(", line) for line in lines), lines
    sent = "[('send_invoice', 'Sent invoice INV-0007 for 1500000 VND to CUS-000042.')]"
    assert [s for s in steps if s.endswith(sent)], lines
    answer = re.fullmatch(r"step \d+: answer (.+)", steps[-1])
    assert answer is not None, lines
    assert answer.group(1) not in ("None", "''"), lines
    assert re.fullmatch(r"\d+ tokens over the whole run", lines[-1])


def test_the_agent_loop_example_runs_on_the_demo_model(demo_server: Server) -> None:
    check_example(demo_server.base_url)
