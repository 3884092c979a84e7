"""Call tags: an `auto` answer's calls decoded under the tools' schemas, once they start.

Under `tool_choice="auto"` vLLM holds the answer to no grammar: the model may answer in
text, and a call it writes is free JSON, checked only after it is written. The small demo
models write their calls in a form of their own, a JSON object with `name` and
`arguments`, pretty-printed in a Markdown fence by Qwen2.5-Coder (`{\\n  "name": "..."`)
or compact inside Hermes tags (`{"name": "..."`). An xgrammar structural tag with triggers
holds exactly that: the text stays free until it reaches `{"name": "create_invoice"` (in
one of the forms below), and from there the call's `arguments` are decoded under the
tool's schema, with grounded decoding's candidates when `"grounded"`. A call to a tool
nobody offered never triggers, so it still comes back as text for the pipeline to handle.

`call_tags=` picks what a tagged call is held to: `"off"` sends nothing more, `"schema"`
the tool's strict schema, `"grounded"` the schema with each groundable field's stated
values as an `enum` (`grounding/_decoding`). A server that refuses the tag (a 400 or 422 on a
request that carries it) gets the request again without it, and the client sends no tag
from then on (`TagSupport`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, get_args

__all__ = [
    "CALL_TAG_MODES",
    "CallTagMode",
    "TagSupport",
    "carries_tag",
    "tagged_request",
    "untagged",
]

CallTagMode = Literal["off", "schema", "grounded"]
"""What an `auto` answer's call is held to once it starts: nothing, the tool's schema, or
the schema with the conversation's stated values (`grounded_decoding`'s candidates)."""
CALL_TAG_MODES: Final[tuple[CallTagMode, ...]] = get_args(CallTagMode)

logger = logging.getLogger("toolcall_sdk")

# The forms a call object is written in: (what opens it up to the name, between the name and
# the arguments, what closes it). Compact is Hermes' `<tool_call>` body; the indented ones
# are what Qwen2.5-Coder writes in a fence.
_FORMS: Final = (
    ('{"name": "', '", "arguments": ', "}"),
    ('{\n  "name": "', '",\n  "arguments": ', "\n}"),
    ('{\n    "name": "', '",\n    "arguments": ', "\n}"),
)


class TagSupport:
    """Whether the client's server takes a structural tag; learnt once per client."""

    __slots__ = ("_lock", "refused")

    def __init__(self) -> None:
        self.refused = False
        self._lock = threading.Lock()

    def refuse(self, base_url: str, error: object) -> None:
        """The server answered a tagged request with a 400 or 422: send no tag from now on."""
        with self._lock:
            if self.refused:
                return
            self.refused = True
        logger.warning(
            "%s refused a structural tag (%s); calls under tool_choice='auto' are sent "
            "without one from now on (call_tags='off' stops this warning)",
            base_url,
            str(error)[:200],
        )


def tagged_request(
    params: dict[str, Any],
    *,
    mode: CallTagMode,
    support: TagSupport,
    hold: Callable[[dict[str, Any]], tuple[dict[str, Any], list[str]]],
) -> tuple[dict[str, Any], list[str]]:
    """The request with a structural tag for each offered tool, when it is an `auto` one.

    Args:
        params: The stage-2 request as built; not changed.
        mode: See `CallTagMode`.
        support: The client's `TagSupport` (no tag once the server refused one).
        hold: Grounded decoding of a forced request (`grounded_request`), for `"grounded"`:
            the tags take its tools' held schemas.

    Returns:
        The request to send (`params` itself when no tag applies: not `auto`, no tools, a
        response format already set, the server refused a tag) and one `tool:/field` per
        field held to stated values.
    """
    if (
        mode == "off"
        or support.refused
        or params.get("tool_choice") != "auto"
        or "response_format" in params
        or _caller_format(params)
    ):
        return params, []
    tools, held = params.get("tools"), list[str]()
    if mode == "grounded":
        forced, held = hold({**params, "tool_choice": "required"})
        tools = forced.get("tools")
    structures: list[dict[str, Any]] = []
    triggers: list[str] = []
    for entry in tools or ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        schema = function.get("parameters") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or not isinstance(schema, Mapping):
            continue
        # A name that JSON would escape is never written as is: leave that tool free.
        if json.dumps(name)[1:-1] != name:
            continue
        for opening, middle, closing in _FORMS:
            # The closing quote is in the trigger, so that `get_invoice` never fires on
            # `get_invoices`.
            triggers.append(f'{opening}{name}"')
            structures.append(
                {"begin": f"{opening}{name}{middle}", "schema": dict(schema), "end": closing}
            )
    if not structures:
        return params, []
    tag = {"type": "structural_tag", "structures": structures, "triggers": triggers}
    return {**params, "response_format": tag}, held


def carries_tag(body: Mapping[str, Any]) -> bool:
    """Whether a request body carries a structural tag: only this module sets one at the top
    level (a caller's own format goes in `extra_body`, and then no tag is added)."""
    response_format = body.get("response_format")
    return isinstance(response_format, Mapping) and response_format.get("type") == (
        "structural_tag"
    )


def untagged(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A request's `{"body", "options"}` without the tag (for a server that refused it)."""
    body = {k: v for k, v in kwargs["body"].items() if k != "response_format"}
    return {**kwargs, "body": body}


def _caller_format(params: Mapping[str, Any]) -> bool:
    extra = params.get("extra_body")
    return isinstance(extra, Mapping) and (
        "response_format" in extra or "structured_outputs" in extra
    )
