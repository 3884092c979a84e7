"""The grounding check, measured: false alarms on right answers, and what it costs per call.

**False alarms.** Every ground-truth call BFCL ships (`bfcl-eval`: simple, multiple,
parallel, parallel_multiple, live_simple, live_multiple; the first acceptable value of each
argument, as `toolcall_sdk.bfcl.ground_truth_as_output` picks it) is validated by the tool's
schema, as the client would, then run through the grounding check against its question.
Every call it bounces is a false alarm: the answer was right. The same for the bundled
invoices set (`evals/invoices.jsonl`: our own domain, ids, amounts and dates in every call)
and for the right answers of the small-model replay corpus, replayed through the client.
The live categories are BFCL's held-out split: nothing in the check was tuned on them.

**Cost.** A 10-argument call in a 20-message conversation: the validation that runs anyway
(`check_answer`: JSON decoding, repairs, Pydantic) against the grounding check on top of it,
for a conversation never seen (every message read), one seen before (a retry, the next step
of an agent: the readings are kept), and one with a new last message (a new turn).
Ratios are to the validation, measured in the same run; medians of batches, in process CPU
time (a busy machine's other work is not counted).

    python benchmarks/grounding.py [--examples 8] [--skip-bfcl] [--cost-only]

BFCL needs `pip install --no-deps "bfcl-eval==2026.3.23"`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from toolcall_sdk import GroundingPolicy, ToolCallClient, tool, tool_from_openai
from toolcall_sdk._results import ToolCall
from toolcall_sdk._tools import Tool
from toolcall_sdk._validation import check_answer
from toolcall_sdk.grounding import DEFAULT_POLICY, FULL_POLICY
from toolcall_sdk.grounding._check import Grounder, kind_of
from toolcall_sdk.grounding._markers import ANY_ITEM
from toolcall_sdk.grounding._sources import _cached_conversation, _cached_facts
from toolcall_sdk.testing import ScriptedModel

REPO = Path(__file__).resolve().parent.parent
BFCL_CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
)
POLICIES: dict[str, GroundingPolicy] = {"default": DEFAULT_POLICY, "all": FULL_POLICY}


@dataclass
class Tally:
    """Calls and values of one source under one policy."""

    calls: int = 0
    bounced: int = 0
    schema_rejects: int = 0  # ground truth the schema itself rejects: not the check's doing
    checked: Counter[str] = field(default_factory=Counter)
    ungrounded: Counter[str] = field(default_factory=Counter)
    examples: list[tuple[str, str, str, Any, str]] = field(default_factory=list)


def _kind_of_message(message: str) -> str:
    for kind in ("number", "date", "identifier"):
        if f"not a {kind}" in message or f"not an {kind}" in message:
            return kind
    return "text"


def _count_checked(grounder: Grounder, call: ToolCall, policy: GroundingPolicy) -> Counter[str]:
    """How many values of each kind the policy looks at in `call`."""
    plan = grounder.plan(call.name)
    counts: Counter[str] = Counter()

    def walk(value: Any, path: tuple[str, ...]) -> None:
        rule = plan.get(path) if path else None
        if rule is not None and rule.mark == "derived":
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                walk(item, (*path, str(key)))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, (*path, ANY_ITEM))
        else:
            kind = kind_of(value, rule)
            if kind is not None and kind in policy.kinds:
                counts[kind] += 1

    walk(call.arguments.model_dump(by_alias=True, exclude_unset=True), ())
    return counts


def _check_calls(
    tally: Tally,
    case_id: str,
    tools: dict[str, Tool[..., Any]],
    calls_made: Sequence[tuple[str, dict[str, Any]]],
    messages: Sequence[Mapping[str, Any]],
    policy: GroundingPolicy,
    context: Any = None,
) -> None:
    schemas = {name: t.openai_schema(strict=True) for name, t in tools.items()}
    raw = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls_made)
    ]
    calls, problems = check_answer(
        {"role": "assistant", "tool_calls": raw},
        tools,
        schemas={n: s["function"]["parameters"] for n, s in schemas.items()},
        context=context,
    )
    tally.schema_rejects += len(problems)
    grounder = Grounder(tools, schemas)
    for call in calls:
        tally.checked.update(_count_checked(grounder, call, policy))
    _, bounced = grounder.check(calls, messages, policy)
    tally.calls += len(calls)
    tally.bounced += len(bounced)
    question = " | ".join(
        str(m.get("content"))[:160] for m in messages if m.get("role") in ("user", "system")
    )
    for problem in bounced:
        for error in problem.fields:
            kind = _kind_of_message(error.message)
            tally.ungrounded[kind] += 1
            tally.examples.append((case_id, kind, error.field, error.value, question))


def bfcl_tallies(policy: GroundingPolicy) -> dict[str, Tally]:
    from toolcall_sdk.bfcl import ground_truth_as_output, load_category

    tallies: dict[str, Tally] = {}
    for category in BFCL_CATEGORIES:
        tally = tallies.setdefault(category, Tally())
        for case in load_category(category):
            tools = {}
            for definition in case.tools:
                made = tool_from_openai(definition)
                tools[made.name] = made
            to_openai = {bfcl: name for name, bfcl in case.name_map.items()}
            calls = [
                (to_openai.get(name, name), args)
                for entry in ground_truth_as_output(case.ground_truth or [])
                for name, args in entry.items()
            ]
            _check_calls(tally, case.id, tools, calls, case.messages, policy)
    return tallies


def invoices_tally(policy: GroundingPolicy) -> Tally:
    sys.path.insert(0, str(REPO / "evals"))
    from invoices_tools import TOOLS  # the bundled set's tools

    tools = {t.name: t for t in TOOLS}
    tally = Tally()
    for line in (REPO / "evals" / "invoices.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        expected = case["expected"].get("calls") or []
        if expected:
            calls = [(c["name"], c["arguments"]) for c in expected]
            _check_calls(
                tally, case["id"], tools, calls, case["messages"], policy, case.get("context")
            )
    return tally


def replay_rows() -> list[tuple[str, int, int]]:
    """Right answers of the replay corpus read, with the check off, default, all."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from replays import run_all

    rows = []
    for name, grounding in (("off", False), ("default", DEFAULT_POLICY), ("all", FULL_POLICY)):

        def factory(
            model: ScriptedModel, tools: list[Any], *, model_id: str, _g: Any = grounding
        ) -> ToolCallClient:
            return ToolCallClient(
                base_url=model.base_url,
                model=model_id,
                tools=tools,
                http_client=model.http_client(),
                router="always",
                max_retries=0,
                recover=True,
                grounding=_g,
            )

        outcomes = [o for o in run_all(factory) if o.replay.calls is not None]
        rows.append((name, sum(o.passed for o in outcomes), len(outcomes)))
    return rows


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _spread(items: list[Any], count: int) -> list[Any]:
    """Up to `count` items, taken from each source (the case id's category) in turn."""
    by_source: dict[str, list[Any]] = {}
    for item in items:
        by_source.setdefault(str(item[0]).rsplit("_", 1)[0], []).append(item)
    picked: list[Any] = []
    while len(picked) < count and any(by_source.values()):
        for queue in by_source.values():
            if queue and len(picked) < count:
                picked.append(queue.pop(0))
    return picked


def false_alarm_report(examples: int, skip_bfcl: bool) -> str:
    out: list[str] = []
    for name, policy in POLICIES.items():
        kinds = ", ".join(sorted(policy.kinds))
        out.append(f"\n### Policy `{name}` ({kinds})\n")
        tallies = {} if skip_bfcl else bfcl_tallies(policy)
        tallies["invoices (bundled set)"] = invoices_tally(policy)
        out.append("| source | split | right calls | bounced | share | schema rejects |")
        out.append("|---|---|---|---|---|---|")
        splits = {"dev": Tally(), "held-out": Tally()}
        for source, tally in tallies.items():
            split = "held-out" if source.startswith("live_") else "dev"
            if source in BFCL_CATEGORIES:
                splits[split].calls += tally.calls
                splits[split].bounced += tally.bounced
            else:
                split = "own"
            share = _pct(tally.bounced, tally.calls)
            out.append(
                f"| {source} | {split} | {tally.calls} | {tally.bounced} | {share} "
                f"| {tally.schema_rejects} |"
            )
        bfcl = [t for s, t in tallies.items() if s in BFCL_CATEGORIES]
        if bfcl:
            for split, t in splits.items():
                out.append(
                    f"| BFCL {split} | | {t.calls} | {t.bounced} | {_pct(t.bounced, t.calls)} | |"
                )
            calls = sum(t.calls for t in bfcl)
            bounced = sum(t.bounced for t in bfcl)
            out.append(f"| **BFCL, all six** | | {calls} | {bounced} | {_pct(bounced, calls)} | |")
        out.append("\n| value kind | values checked | ungrounded | share |")
        out.append("|---|---|---|---|")
        checked: Counter[str] = Counter()
        ungrounded: Counter[str] = Counter()
        for tally in tallies.values():
            checked.update(tally.checked)
            ungrounded.update(tally.ungrounded)
        for kind in sorted(checked):
            out.append(
                f"| {kind} | {checked[kind]} | {ungrounded[kind]} "
                f"| {_pct(ungrounded[kind], checked[kind])} |"
            )
        shown = [e for t in tallies.values() for e in t.examples]
        by_kind: dict[str, list[tuple[str, str, str, Any, str]]] = {}
        for example in shown:
            by_kind.setdefault(example[1], []).append(example)
        if shown:
            out.append("\nExamples (case, field = value, what the user wrote):\n")
        for kind, items in sorted(by_kind.items()):
            for case_id, _, where, value, question in _spread(items, examples):
                said = " ".join(question.split())[:140]
                out.append(f'- {kind}: `{case_id}` {where} = {value!r}: "{said}"')
            if len(items) > examples:
                out.append(f"- {kind}: ... and {len(items) - examples} more")
    out.append("\n### Replayed right answers (small-model styles, `benchmarks/replays.py`)\n")
    out.append("| grounding | right answers read |")
    out.append("|---|---|")
    for name, read, total in replay_rows():
        out.append(f"| {name} | {read}/{total} |")
    return "\n".join(out)


# -- cost -------------------------------------------------------------------------------


@tool
def record_sale(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    invoice_id: Annotated[str, Field(pattern=r"^INV-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    tax_rate: float,
    quantity: int,
    issued_on: date,
    due_on: date,
    contact: str,
    currency: Literal["VND", "USD"],
    note: str,
) -> None:
    """Record a sale (10 arguments: ids, numbers, dates, an e-mail, a choice, free text)."""


ARGUMENTS = {
    "customer_id": "CUS-000042",
    "invoice_id": "INV-004512",
    "amount_vnd": 12_500_000,
    "tax_rate": 0.08,
    "quantity": 25,
    "issued_on": "2028-01-02",
    "due_on": "2028-01-31",
    "contact": "an.nguyen@example.com",
    "currency": "VND",
    "note": "Second order this quarter; deliver to the Hue warehouse.",
}
_FILLER = (
    "Thanks. Our warehouse in Hue opens at 8 and closes at 17 on weekdays; the last delivery "
    "was on time and the packaging was fine. Please keep the same carrier as before."
)


def conversation(last: str = "") -> list[dict[str, Any]]:
    """20 messages (about 4,000 characters) stating the values here and there."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the sales assistant. Amounts are in VND."}
    ]
    turns = [
        ("user", f"Hi, this is An from customer CUS-000042. {_FILLER}"),
        ("assistant", "Hello An, how can I help?"),
        ("user", f"We want 25 more units, same as the order on 2 January 2028. {_FILLER}"),
        ("assistant", "Let me look up that invoice."),
        ("tool", '{"invoice_id": "INV-004512", "issued_on": "2028-01-02", "status": "open"}'),
        ("assistant", "Invoice INV-004512 is open. Same price as then?"),
        ("user", f"Yes, 12.5 million VND in total, VAT 8%. {_FILLER}"),
        ("assistant", "Noted. Where should the invoice go?"),
        ("user", f"Mail it to an.nguyen@example.com please. {_FILLER}"),
        ("assistant", "And the due date?"),
        ("user", f"Make it due January 31, 2028. {_FILLER}"),
        ("assistant", "Anything else?"),
        ("user", f"Deliver to the Hue warehouse. {_FILLER}"),
        ("assistant", "Will do."),
        ("user", f"One more thing: it is our second order this quarter. {_FILLER}"),
        ("assistant", "Thanks for the note."),
        ("tool", '{"customer_id": "CUS-000042", "credit_ok": true}'),
        ("assistant", "Your credit is fine."),
        ("user", last or f"Great, please record the sale now. {_FILLER}"),
    ]
    messages += [{"role": role, "content": content} for role, content in turns]
    assert len(messages) == 20
    return messages


def _timed(runners: Mapping[str, tuple[Callable[[], Any], int]], rounds: int) -> dict[str, float]:
    """Median µs of process CPU time per run of each runner; the runners take turns, round
    by round, in a rotating order, so a busy machine slows them alike."""
    samples: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            run, batch = runners[name]
            started = time.process_time()
            for _ in range(batch):
                run()
            samples[name].append((time.process_time() - started) / batch * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def _forget() -> None:
    """Drop every kept reading: the next check reads the conversation from scratch."""
    _cached_conversation.cache_clear()
    _cached_facts.cache_clear()


def cost_report(rounds: int) -> str:
    tools = {"record_sale": record_sale}
    schemas = {"record_sale": record_sale.openai_schema(strict=True)}
    parameters = {"record_sale": schemas["record_sale"]["function"]["parameters"]}
    answer = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "record_sale", "arguments": json.dumps(ARGUMENTS)},
            }
        ],
    }
    grounder = Grounder(tools, schemas)
    calls, problems = check_answer(answer, tools, schemas=parameters)
    assert not problems, problems
    messages = conversation()
    for policy in POLICIES.values():
        _, bounced = grounder.check(calls, messages, policy)
        assert not bounced, bounced  # every value is stated: every field is checked, and passes
    wrong = [
        ToolCall(
            id="call_1",
            name="record_sale",
            arguments=calls[0].arguments.model_copy(update={"amount_vnd": 125_000_000}),
            raw_arguments="",
        )
    ]
    turn = iter(range(10**9))

    def never_seen(policy: GroundingPolicy) -> Callable[[], Any]:
        def run() -> Any:
            _forget()
            return grounder.check(calls, messages, policy)

        return run

    def new_turn(policy: GroundingPolicy) -> Callable[[], Any]:
        def run() -> Any:
            fresh = conversation(f"Turn {next(turn)}: please record the sale now. {_FILLER}")
            return grounder.check(calls, fresh, policy)

        return run

    runners: dict[str, tuple[Callable[[], Any], int]] = {
        "validate": (lambda: check_answer(answer, tools, schemas=parameters), 200),
        "forget": (_forget, 200),
        "conversation": (lambda: conversation(f"Turn {next(turn)}: x"), 200),
        "wrong": (lambda: grounder.check(wrong, messages, FULL_POLICY), 50),
    }
    for name, policy in POLICIES.items():
        runners[f"{name} never seen"] = (never_seen(policy), 10)
        runners[f"{name} new turn"] = (new_turn(policy), 50)
        runners[f"{name} seen"] = (lambda p=policy: grounder.check(calls, messages, p), 200)
    times = _timed(runners, rounds)
    base = times["validate"]
    rows = [("the validation that runs anyway (`check_answer`)", base)]
    for name in POLICIES:
        rows += [
            (f"`{name}`: the conversation seen before", times[f"{name} seen"]),
            (
                f"`{name}`: a new last message",
                times[f"{name} new turn"] - times["conversation"],
            ),
            (
                f"`{name}`: a conversation never seen",
                times[f"{name} never seen"] - times["forget"],
            ),
        ]
    rows.append(("`all`: one wrong amount, its feedback written", times["wrong"]))
    lines = [
        "| a 10-argument call, a 20-message conversation | µs per call | ratio to validation |",
        "|---|---|---|",
    ]
    lines += [f"| {label} | {us:.1f} | {us / base:.2f} |" for label, us in rows]
    return "\n".join(lines)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=8, help="false alarms shown per kind")
    parser.add_argument("--rounds", type=int, default=15, help="timed batches per cost row")
    parser.add_argument("--skip-bfcl", action="store_true", help="no BFCL (not installed)")
    parser.add_argument("--cost-only", action="store_true", help="only the cost table")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not args.cost_only:
        print("## False alarms on right answers")
        print(false_alarm_report(args.examples, args.skip_bfcl))
    print("\n## Cost")
    print(cost_report(args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
