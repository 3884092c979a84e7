"""The README's quickstart, run as written against the scripted model on a local port."""

from __future__ import annotations

import re
from pathlib import Path

from toolcall_sdk.testing import ScriptedModel, tool_call

README = Path(__file__).parents[2] / "README.md"


def _quickstart() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "README has no python block under Quickstart"
    return match.group(1)


def test_quickstart_is_short() -> None:
    assert len(_quickstart().strip().splitlines()) <= 15


def test_quickstart_runs_and_prints_the_validated_call(capsys: object) -> None:
    model = ScriptedModel(
        [
            tool_call(
                "create_invoice",
                {"customer_id": "CUS-42", "amount_vnd": 1500000, "due_date": "2030-12-31"},
            ),
            tool_call(
                "create_invoice",
                {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"},
            ),
        ]
    )
    code = _quickstart()
    assert "http://localhost:8000/v1" in code
    with model.serve() as base_url:
        namespace: dict[str, object] = {"__name__": "readme_quickstart"}
        exec(
            compile(code.replace("http://localhost:8000/v1", base_url), "README", "exec"), namespace
        )

    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "customer_id='CUS-000042'" in out
    assert "{'invoice_id': 'INV-0001', 'customer_id': 'CUS-000042'} 2" in out
    first, second = model.requests  # the default router asks no question of its own
    assert first.json is not None
    assert first.json["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert "customer_id" in second.messages[-1]["content"]
