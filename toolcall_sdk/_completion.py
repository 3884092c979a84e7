"""`listed_values`: a valid answer that leaves out calls the request lists, completed.

The pipeline hands a valid answer to `complete` before anything of it runs (the seam in
`_pipeline._step_flow`); what `complete` asks and checks, it asks and checks through the
`Stage2` port the pipeline gives it, so the pipeline's requests, validation and history
stay the pipeline's. `_listed_values` reads what the request lists.

- `ask`: the answer goes back once with a `missing_calls` note, under an unnamed
  `required` of its own tools (a named choice decodes exactly one call); the new answer
  replaces it only if it is valid, calls none but those tools, has more calls and leaves
  fewer listed values out. Otherwise the first stands and the history forgets the ask.
- `complete`: each left-out call is one named request of its tool, on the conversation as
  the first answer saw it, with the listed values held by the schema (and a pointer to
  its own sentence where it has one). A call that comes back valid, grounded and new
  joins the answer, which is validated again as a whole; if that finds a problem the
  first answer stands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from toolcall_sdk._listed_values import (
    ListedValues,
    call_arguments,
    item_request,
    listed_problems,
    missing_count,
    missing_items,
)
from toolcall_sdk._messages import distinct_call_ids
from toolcall_sdk._next_calls import (
    continuation,
    continued_calls,
    continued_format,
    kept,
    lists_more,
)
from toolcall_sdk._results import Attempt, Problem, ToolCall

__all__ = ["Candidate", "Stage2", "complete"]

Shape = Callable[[dict[str, Any]], dict[str, Any]]
Checked = tuple[list[ToolCall], list[Problem]]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One answer of stage 2, before it is checked."""

    attempt: Attempt
    message: dict[str, Any]  # calls recovered from the text included
    repairs: list[str]  # made while reading it (the paused answer's were told before)
    approvals: Mapping[str, bool]  # a person's decisions: only for the resumed answer


class Stage2(Protocol):
    """What the pipeline lends `complete` for one step."""

    @property
    def request(self) -> str:
        """The user's request the step answers (`_listed_values.request_text`)."""
        ...

    @property
    def history(self) -> list[dict[str, Any]]:
        """The step's conversation as it will be sent."""
        ...

    def ask(
        self, names: Sequence[str], number: int, *, shape: Shape | None, parallel: bool
    ) -> Generator[Any, Any, Candidate | None]:
        """One forced stage-2 request offering `names`, recorded as attempt `number`;
        None when the server failed it (the valid answer in hand is not lost for it)."""
        ...

    def validate(
        self, candidate: Candidate, names: Sequence[str], number: int
    ) -> Generator[Any, Any, Checked]:
        """The answer's calls and problems against the tools `names` (grounding too)."""
        ...

    @property
    def model(self) -> str:
        """The model the client asks (its family's format is the continuation's)."""
        ...

    def continued(self, text: str, number: int) -> Generator[Any, Any, Candidate | None]:
        """The step's stage-2 request continuing the assistant turn `text`, recorded as
        attempt `number`; the answer is text. None when the server failed it."""
        ...

    def send_back(
        self, candidate: Candidate, calls: list[ToolCall], problems: list[Problem]
    ) -> None:
        """Record the problems and put the answer, then the feedback, in the history."""
        ...

    def taken_ids(self) -> list[str]:
        """The call ids of the step's calls that ran."""
        ...


def complete(
    mode: ListedValues, port: Stage2, candidate: Candidate, calls: list[ToolCall]
) -> Generator[Any, Any, tuple[Candidate, list[ToolCall]]]:
    """The valid answer, or one with the calls it left out (see the module)."""
    if mode == "complete":
        return (yield from _filled_in(port, candidate, calls))
    if mode == "continue" or (
        mode == "continue_listed"
        and lists_more([call_arguments(call) for call in calls], port.request)
    ):
        return (yield from _continued(port, candidate, calls))
    problems = listed_problems(calls, port.request) if mode == "ask" else []
    if not problems:
        return candidate, calls
    return (yield from _asked(port, candidate, calls, problems))


def _asked(
    port: Stage2, candidate: Candidate, calls: list[ToolCall], problems: list[Problem]
) -> Generator[Any, Any, tuple[Candidate, list[ToolCall]]]:
    mark = len(port.history)
    names = list(dict.fromkeys(call.name for call in calls))
    port.send_back(candidate, calls, problems)
    number = candidate.attempt.number + 1
    fuller = yield from port.ask(names, number, shape=None, parallel=True)
    more: list[ToolCall] = []
    wrong: list[Problem] = []
    if fuller is not None:
        more, wrong = yield from port.validate(fuller, names, number)
        fuller.attempt.problems = wrong
    left = missing_count(more, port.request)
    if (
        fuller is None
        or wrong
        or len(more) <= len(calls)
        or left >= missing_count(calls, port.request)
    ):
        # The first answer stands, as if never sent back; the ask stays in `.attempts`.
        candidate.attempt.problems, candidate.attempt.feedback = [], []
        del port.history[mark:]
        return candidate, calls
    return fuller, more


def _filled_in(
    port: Stage2, candidate: Candidate, calls: list[ToolCall]
) -> Generator[Any, Any, tuple[Candidate, list[ToolCall]]]:
    items = missing_items(calls, port.request)
    if not items:
        return candidate, calls
    joined = [dict(call) for call in candidate.message.get("tool_calls") or ()]
    seen = {_same_call(call) for call in calls}
    number = candidate.attempt.number
    last = candidate
    for item in items:
        number += 1
        shape = partial(item_request, item=item)
        answer = yield from port.ask([item.name], number, shape=shape, parallel=False)
        if answer is None:
            break  # the server failed the request: the calls in hand stand
        last = answer
        more, wrong = yield from port.validate(last, [item.name], number)
        last.attempt.problems = wrong
        if not wrong and len(more) == 1 and _same_call(more[0]) not in seen:
            seen.add(_same_call(more[0]))
            joined += last.message.get("tool_calls") or []
    if len(joined) == len(calls):
        return candidate, calls
    message = distinct_call_ids({**candidate.message, "tool_calls": joined}, taken=port.taken_ids())
    whole = Candidate(last.attempt, message, [], {})
    names = list(dict.fromkeys(call.name for call in calls))
    all_calls, problems = yield from port.validate(whole, names, whole.attempt.number)
    return (candidate, calls) if problems else (whole, all_calls)


def _continued(
    port: Stage2, candidate: Candidate, calls: list[ToolCall]
) -> Generator[Any, Any, tuple[Candidate, list[ToolCall]]]:
    fmt = continued_format(port.model)
    names = {call.name for call in calls}
    if fmt is None or len(names) != 1:
        return candidate, calls  # several tools: a continuation of one would leave others
    name = calls[0].name
    written = [(call.name, call_arguments(call)) for call in calls]
    number = candidate.attempt.number + 1
    answer = yield from port.continued(continuation(fmt, written, name), number)
    if answer is None:
        return candidate, calls  # the server failed the request: the calls in hand stand
    first, earlier = written[0][1], [arguments for _, arguments in written]
    joined = [dict(call) for call in candidate.message.get("tool_calls") or ()]
    for index, arguments in enumerate(continued_calls(fmt, name, _text(answer))):
        if not kept(first, earlier, arguments, port.request):
            continue
        entry = {
            "id": f"call_continued_{number}_{index}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": json.dumps(arguments, ensure_ascii=False, separators=(",", ":")),
            },
        }
        one = Candidate(answer.attempt, {"role": "assistant", "tool_calls": [entry]}, [], {})
        more, wrong = yield from port.validate(one, [name], number)
        if not wrong and len(more) == 1:
            earlier.append(arguments)
            joined.append(entry)
    answer.attempt.problems = []
    if len(joined) == len(calls):
        return candidate, calls
    message = distinct_call_ids({**candidate.message, "tool_calls": joined}, taken=port.taken_ids())
    whole = Candidate(answer.attempt, message, [], {})
    all_calls, problems = yield from port.validate(whole, [name], number)
    return (candidate, calls) if problems else (whole, all_calls)


def _text(answer: Candidate) -> str:
    content = answer.message.get("content")
    return content if isinstance(content, str) else ""


def _same_call(call: ToolCall) -> tuple[str, str]:
    return call.name, call.arguments.model_dump_json()
