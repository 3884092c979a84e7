"""Every example in examples/ runs (offline, against the scripted model)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall_sdk import install_command

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.py"))
# Examples of an extra that the unit tier (`scripts/test.sh --unit`) does not install.
_NEEDS_TORCH = {"prompt_embeds.py"}
# Examples that need a package beyond the client's, and the line each prints without it.
_WITHOUT = {
    "fastapi_endpoint.py": (
        "fastapi",
        "examples/fastapi_endpoint.py needs 'fastapi', which is not installed: run "
        "`pip install fastapi`",
    ),
    "prompt_embeds.py": (
        "torch",
        "examples/prompt_embeds.py needs 'torch', which is not installed: run "
        f"`{install_command('embeds')}`",
    ),
    "terminal_ui.py": (
        "rich",
        "examples/terminal_ui.py needs 'rich', which is not installed: run "
        f"`{install_command('cli')}` (or `pip install rich`)",
    ),
}


def _run(name: str, **env: str) -> str:
    """Run one example offline (no TOOLCALL_BASE_URL) and return its standard output."""
    path = next(p for p in EXAMPLES if p.name == name)
    clean = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**clean, **env},
    ).stdout


def test_examples_exist() -> None:
    names = {p.name for p in EXAMPLES}
    # The invoice agent (quickstart: one call; agent_loop: the loop with an approval), a
    # multi-step async agent, streaming into a terminal UI, escalation to a human queue, the
    # agent behind a FastAPI endpoint, a wrong amount caught by the grounding check, and a
    # request that lists three values completed with three calls, and five answers to one
    # request with the grounded one kept, and an auto answer's call held to the stated values.
    assert {
        "call_tags.py",
        "grounded_amounts.py",
        "listed_values.py",
        "samples.py",
        "quickstart.py",
        "agent_loop.py",
        "async_agent.py",
        "terminal_ui.py",
        "escalation.py",
        "fastapi_endpoint.py",
    } <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_says_how_to_run_it_against_a_server(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""

    assert "TOOLCALL_BASE_URL=http://localhost:8000/v1" in docstring
    assert 'os.environ.get("TOOLCALL_BASE_URL")' in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path) -> None:
    if path.name in _NEEDS_TORCH:
        pytest.importorskip("torch", reason=f"{path.name} needs the embeds extra (torch)")
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


@pytest.mark.parametrize("name", sorted(_WITHOUT))
def test_example_without_its_package_says_what_to_install(name: str) -> None:
    module, line = _WITHOUT[name]
    path = next(p for p in EXAMPLES if p.name == name)
    # A None entry in sys.modules makes the import fail as if the package were absent.
    code = (
        f"import runpy, sys; sys.modules[{module!r}] = None; "
        f"runpy.run_path({str(path)!r}, run_name='__main__')"
    )
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [line]  # one line, no traceback


def test_quickstart_shows_the_feedback_loop() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    path = next(p for p in EXAMPLES if p.name == "quickstart.py")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True, env=env
    ).stdout
    # The rejected attempt shows the feedback the model was sent, as the README promises.
    assert "attempt 1 rejected; the model was told:" in out
    assert "VALIDATION_ERROR in create_invoice" in out
    assert "- customer_id: String should match pattern '^CUS-\\d{6}$' (got \"CUS-42\")" in out
    assert "['invalid_arguments']" not in out
    assert "attempt 2: ok" in out
    assert "-> {'invoice_id': 'INV-0001', 'customer_id': 'CUS-000042'" in out


def test_escalation_runs_nothing_and_queues_a_ticket() -> None:
    out = _run("escalation.py")

    assert "stage-2 requests: 3, business executions: 0" in out
    assert "A person will take over this request (ticket #1)." in out
    ticket = json.loads(out.split("desk: ticket #1: ", 1)[1].splitlines()[0])
    assert ticket["request"] == "Charge the customer's card 0 VND."
    assert [a["problems"] for a in ticket["attempts"]] == [
        ["amount_vnd: Input should be greater than 0"]
    ] * 3
    assert ticket["attempts"][0]["arguments"] == ['{"amount_vnd": 0}']


def test_async_agent_runs_three_agents_at_once() -> None:
    out = _run("async_agent.py")

    acme, globex, initech = out.split("Remind ")[1:]
    assert "step 3 (1 attempt(s)): [('send_reminder', 'reminder for INV-0007 sent'), " in acme
    assert "step 4: answer 'Sent 2 reminder(s):" in acme
    assert "step 3 (2 attempt(s)): [('send_reminder', 'reminder for INV-0019 sent')]" in globex
    assert "rejected: [\"invoice_id: String should match pattern '^INV-\\\\d{4}$'\"]" in globex
    assert "step 3: answer 'Nothing is overdue; no reminder sent.'" in initech
    assert (
        "reminders sent: [('CUS-000042', 'INV-0007'), ('CUS-000042', 'INV-0011'), "
        "('CUS-000107', 'INV-0019')]"
    ) in out


def test_terminal_ui_draws_the_attempts() -> None:
    out = _run("terminal_ui.py", COLUMNS="200")

    rows = [line for line in out.splitlines() if "create_invoice" in line]
    assert len(rows) == 2
    assert "2020-01-31" in rows[0]
    assert "rejected: due_date: must not be in the past" in rows[0]
    assert "2030-12-31" in rows[1]
    assert "validated" in rows[1]
    assert "done: 2 attempt(s), 1 call(s)" in out


def test_fastapi_endpoint_answers_200_then_422() -> None:
    out = _run("fastapi_endpoint.py").splitlines()

    assert out[0] == "POST /invoices 'Invoice Acme 1500000 VND, due 2030-12-31.' -> 200"
    created = json.loads(out[1])
    assert created["answer"] == "Created INV-0001."
    assert created["attempts"] == 3  # find_customer, then create_invoice rejected once
    assert created["calls"][1] == {
        "name": "create_invoice",
        "arguments": {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"},
        "output": {"invoice_id": "INV-0001", "customer_id": "CUS-000042", "due": "2030-12-31"},
    }
    assert out[2] == "POST /invoices 'Invoice Globex 0 VND, due 2030-12-31.' -> 422"
    refused = json.loads(out[3])["detail"]
    assert refused["error"] == "no valid tool call"
    assert len(refused["attempts"]) == 3
    assert all("amount_vnd: Input should be greater than 0" in a[0] for a in refused["attempts"])


def test_prompt_embeds_example_refuses_without_sending() -> None:
    pytest.importorskip("torch", reason="the example needs the embeds extra (torch)")
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    path = next(p for p in EXAMPLES if p.name == "prompt_embeds.py")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert "chat call: get_weather(" in out
    assert "completion from 10 embedded tokens: ' It is sunny in Oslo.'" in out
    assert "expected shape (num_tokens, 16), got (3, 12)" in out
    assert "requests sent for it: 0" in out


def test_agent_loop_pauses_for_approval_and_finishes() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    path = next(p for p in EXAMPLES if p.name == "agent_loop.py")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert "step 1: [('find_customer', 'CUS-000042')]" in out
    assert 'step 2 waits: send_invoice({"customer_id": "CUS-000042", "amount_vnd": 1500000})' in out
    sent = "Sent invoice INV-0007 for 1500000 VND to CUS-000042."
    assert f"step 2: [('send_invoice', '{sent}')]" in out
    assert "step 3: answer 'Invoice INV-0007 for 1,500,000 VND is on its way to Acme.'" in out


def test_grounded_amounts_catches_and_corrects_the_wrong_amount() -> None:
    out = _run("grounded_amounts.py")

    assert "attempt 1 rejected (ungrounded); told:" in out
    assert (
        '- amount_vnd: 125000000 is not a number the user gave; the user wrote "12.5 million '
        'VND" (= 12500000)'
    ) in out
    assert "vat_vnd" not in out.split("attempt 2")[0]  # derived: never checked
    assert "attempt 2: ok" in out
    assert "-> {'invoice_id': 'INV-0001', 'total_vnd': 13500000}" in out


def test_call_tags_holds_the_auto_answers_values_and_shows_the_tag() -> None:
    out = _run("call_tags.py")

    assert "request 1 (auto): held create_invoice:/amount_vnd, create_invoice:/due_date" in out
    assert 'triggers: ["{\\"name\\": \\"create_invoice\\""]' in out
    assert "amount_vnd=12500000" in out


@pytest.mark.parametrize(
    ("mode", "requests"),
    [("continue_listed", 2), ("continue", 2), ("complete", 3)],
)
def test_listed_values_gives_each_listed_value_its_call(mode: str, requests: int) -> None:
    out = _run("listed_values.py", TOOLCALL_LISTED_VALUES=mode)

    assert f"listed_values={mode!r}: {requests} request(s) for 3 call(s)" in out
    for number, value in ((5, 120), (10, 3628800), (15, 1307674368000)):
        assert f"math_factorial(MathFactorial(number={number})) -> {value}" in out
