"""Every example in examples/ runs (offline, against the scripted model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.py"))


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


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


def test_escalation_runs_nothing() -> None:
    path = next(p for p in EXAMPLES if p.name == "escalation.py")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "stage-2 requests: 3, business executions: 0" in out
    assert "A person will take over" in out


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
    assert "step 2: [('send_invoice', {'invoice_id': 'INV-0007'" in out
    assert "step 3: answer 'Invoice INV-0007 for 1,500,000 VND is on its way to Acme.'" in out
