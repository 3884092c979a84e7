"""Property tests: any split of a stream gives what `parse` gives for the whole text.

Two kinds of text:
- *documents*: generated calls rendered in a format, between generated text chosen so the
  rendering is unambiguous (the text holds no start tag of that format, and, for the tagless
  formats, nothing that could open another call where one may stand). `parse` must return
  exactly those calls, and exactly the text around them.
- *soup*: random concatenations of tags, tag pieces, JSON and Python fragments. Whatever
  `parse` makes of it, the stream parser must make the same of every split.
"""

from __future__ import annotations

import itertools
import json
import keyword
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolcall_sdk.parsing import (
    FORMATS,
    ArgumentsDelta,
    ParsedCallFinished,
    ParsedCallStarted,
    ParseResult,
    ReasoningSplitter,
    StreamEvent,
    StreamParser,
    TextDelta,
    parse,
    split_reasoning,
)

SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Strategies --------------------------------------------------------------------------------

TRICKY = [
    "<tool_call>",
    "</tool_call>",
    "<tool",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<function=",
    "</parameter>",
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    "(",
    "'",
    '"""',
    "#",
    "\n",
    " ",
    "Hà Nội",
    "😀",
    "\u2028",
]
strings = st.text(st.characters(codec="utf-8"), max_size=8) | st.sampled_from(TRICKY)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**15), 10**15)
    | st.floats(allow_nan=False, allow_infinity=False)
    | strings
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3),
    max_leaves=6,
)
identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s)
)
json_arguments = st.dictionaries(strings, values, max_size=4)
python_arguments = st.dictionaries(identifiers, values, max_size=4)
blank = st.text(st.sampled_from(" \t\r\n"), max_size=3)

# Text around calls: ordinary words plus pieces of every format's markup.
PIECES = [
    "Sure",
    " ",
    "\n",
    "é",
    "<",
    ">",
    "<tool",
    "_call",
    "</tool_call>",
    "<function",
    "</function>",
    "[TOOL_",
    "CALLS]",
    "[ARGS]",
    "<|python",
    "_tag|>",
    "<|python_end|>",
    '"',
    "}",
    "]",
    ")",
    ";",
    "x",
    "<|tool_call>",
    "<tool_call|>",
    '<|"|>',
    "<arg_value>",
    "<｜tool▁calls▁begin｜>",
    "<｜DSML｜",
    "<|tool_calls_section_begin|>",
    "<|open|>",
    "<|close|>",
    "<|channel|>",
    "<|end|>",
]
prose = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=8).map("".join)


def json_text(draw: st.DrawFn, value: Any) -> str:
    style = draw(st.sampled_from(["compact", "spaced", "indent", "ascii"]))
    if style == "compact":
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if style == "indent":
        return json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(value, ensure_ascii=style == "ascii")


def python_literal(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return repr(value)


Document = tuple[list[tuple[str, str, str]], str, str]  # (name, arguments, raw) calls, text, around


@st.composite
def hermes_documents(draw: st.DrawFn) -> Document:
    count = draw(st.integers(0, 3))
    texts = [draw(prose.filter(lambda t: "<tool_call>" not in t)) for _ in range(count + 1)]
    calls = []
    for _ in range(count):
        # A call without a name is no call (its markup stays text): every call has one.
        name, arguments = draw(strings.filter(bool)), draw(json_arguments)
        key = draw(st.sampled_from(["arguments", "parameters"]))
        # `</tool_call>` inside a JSON string is part of the string.
        body = json_text(draw, {"name": name, key: arguments})
        raw = "<tool_call>" + draw(blank) + body + draw(blank) + "</tool_call>"
        calls.append((name, compact(arguments), raw))
    text = texts[0] + "".join(raw + t for (_, _, raw), t in zip(calls, texts[1:], strict=True))
    return calls, text, "".join(texts)


@st.composite
def qwen25_coder_documents(draw: st.DrawFn) -> Document:
    # No tools are offered here, so only its Hermes calls count; a fence is code, and hides
    # what it holds (test_parsing_qwen25_coder.py reads the offered forms).
    calls, text, around = draw(hermes_documents())
    assume("```" not in text)
    # A call whose JSON opens its body ends where the JSON closes; its end tag follows it.
    ends = [raw[: raw.rindex("</tool_call>")].rstrip(" \t\r\n") for _, _, raw in calls]
    return [(n, a, end) for (n, a, _), end in zip(calls, ends, strict=True)], text, around


@st.composite
def llama3_documents(draw: st.DrawFn) -> Document:
    count = draw(st.integers(1, 3))
    clean = prose.filter(lambda t: "{" not in t and "<|python_tag|>" not in t)
    tagged = draw(st.booleans())
    before = draw(clean) + "<|python_tag|>" if tagged else draw(blank)
    calls = []
    for _ in range(count):
        name, arguments = draw(strings), draw(json_arguments)
        key = draw(st.sampled_from(["arguments", "parameters"]))
        raw = json_text(draw, {"name": name, key: arguments})
        calls.append((name, compact(arguments), raw))
    separators = [draw(st.text(st.sampled_from(" \t\r\n;"), max_size=3)) for _ in calls]
    after = draw(clean)
    markup = (draw(blank) if tagged else "") + calls[0][2]
    markup += "".join(sep + raw for sep, (_, _, raw) in zip(separators, calls[1:], strict=False))
    around = before.removesuffix("<|python_tag|>") + after
    return calls, before + markup + after, around


@st.composite
def mistral_documents(draw: st.DrawFn) -> Document:
    names = st.from_regex(r"[A-Za-z0-9_.\-]{1,12}", fullmatch=True)
    clean = prose.filter(lambda t: "[TOOL_CALLS]" not in t)
    count = draw(st.integers(1, 3))
    calls: list[tuple[str, str, str]] = []
    if draw(st.booleans()):  # [TOOL_CALLS][{...}, {...}]
        before, after = draw(clean), draw(clean)
        elements = []
        for _ in range(count):
            name, arguments = draw(names), draw(json_arguments)
            raw = json_text(draw, {"name": name, "arguments": arguments})
            elements.append(raw)
            calls.append((name, compact(arguments), raw))
        array = "[" + draw(blank) + (", " + draw(blank)).join(elements) + draw(blank) + "]"
        return calls, before + "[TOOL_CALLS]" + draw(blank) + array + after, before + after
    texts = [draw(clean) for _ in range(count + 1)]
    for _ in range(count):  # [TOOL_CALLS]name{...}, one per call
        name, arguments = draw(names), draw(json_arguments)
        raw = (
            "[TOOL_CALLS]"
            + name
            + draw(st.sampled_from(["", "[ARGS]"]))
            + json_text(draw, arguments)
        )
        calls.append((name, compact(arguments), raw))
    text = texts[0] + "".join(raw + t for (_, _, raw), t in zip(calls, texts[1:], strict=True))
    return calls, text, "".join(texts)


@st.composite
def pythonic_documents(draw: st.DrawFn) -> Document:
    tags = ("<|python_start|>", "<|python_end|>")
    clean = prose.filter(lambda t: not any(tag in t for tag in tags))
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        name, arguments = draw(identifiers), draw(python_arguments)
        raw = f"{name}(" + ", ".join(f"{k}={python_literal(v)}" for k, v in arguments.items()) + ")"
        calls.append((name, compact(arguments), raw))
    listing = "[" + ", ".join(raw for _, _, raw in calls) + "]"
    after = draw(clean.filter(lambda t: not t.lstrip(" \t\r\n").startswith("[")))
    if draw(st.booleans()):
        before = draw(clean)
        end = draw(st.sampled_from(["", "<|python_end|>"]))
        return calls, before + "<|python_start|>" + listing + end + after, before + after
    before = draw(blank)
    return calls, before + listing + after, before + after


@st.composite
def xlam_value(draw: st.DrawFn) -> tuple[list[tuple[str, str, str]], str]:
    calls = []
    elements = []
    for _ in range(draw(st.integers(1, 3))):
        name, arguments = draw(strings.filter(bool)), draw(json_arguments)
        key = draw(st.sampled_from(["arguments", "parameters"]))
        call: dict[str, Any] = {"name": name, key: arguments}
        if draw(st.booleans()):  # OpenAI's shape
            call = {"id": "call_1", "type": "function", "function": call}
        raw = json_text(draw, call)
        elements.append(raw)
        calls.append((name, compact(arguments), raw))
    value = "[" + draw(blank) + ("," + draw(blank)).join(elements) + draw(blank) + "]"
    shape = draw(st.sampled_from(["array", "envelope", "thought", "object"]))
    if shape == "object" and len(calls) == 1 and '"id"' not in elements[0]:
        value = elements[0]
    elif shape in ("envelope", "thought"):
        thought = ""
        if shape == "thought":
            thought = f'"thought": {json.dumps(draw(strings))},' + draw(blank)
        value = "{" + draw(blank) + thought + '"tool_calls":' + draw(blank) + value + "}"
    return calls, value


@st.composite
def xlam_documents(draw: st.DrawFn) -> Document:
    calls, text = draw(xlam_value())
    for _ in range(draw(st.integers(0, 2))):  # more values, after `;` or blank space
        more, value = draw(xlam_value())
        calls += more
        text += draw(st.text(st.sampled_from(" \t\r\n;"), max_size=3)) + value
    before = draw(blank)
    after = draw(prose.filter(lambda t: not t.lstrip(" \t\r\n;").startswith(("[", "{"))))
    return calls, before + text + after, before + after


QWEN_CLOSERS = ("</parameter>", "<parameter=", "</function>", "</tool_call>")


def qwen_value(value: Any) -> tuple[str, Any]:
    """How a value is written, and what reading it back gives (JSON where it decodes)."""
    if isinstance(value, str):
        try:
            return value, json.loads(value)
        except ValueError:
            return value, value
    return json.dumps(value, ensure_ascii=False), value


@st.composite
def qwen3_documents(draw: st.DrawFn) -> Document:
    # (A `</tool_call>` right after a bare function belongs to it: none in the text.)
    clean = prose.filter(
        lambda t: not any(tag in t for tag in ("<tool_call>", "<function=", "</tool_call>"))
    )
    count = draw(st.integers(0, 3))
    texts = [draw(clean) for _ in range(count + 1)]
    calls = []
    for _ in range(count):
        name = draw(identifiers)
        arguments = draw(python_arguments)
        written = {k: qwen_value(v) for k, v in arguments.items()}
        written = {k: w for k, w in written.items() if not any(c in w[0] for c in QWEN_CLOSERS)}
        params = "".join(f"<parameter={k}>\n{w[0]}\n</parameter>\n" for k, w in written.items())
        raw = f"<function={name}>\n{params}</function>"
        if draw(st.booleans()):
            raw = "<tool_call>\n" + raw + "\n</tool_call>"
        calls.append((name, compact({k: w[1] for k, w in written.items()}), raw))
    text = texts[0] + "".join(raw + t for (_, _, raw), t in zip(calls, texts[1:], strict=True))
    return calls, text, "".join(texts)


def bare_value(value: Any) -> tuple[str, Any]:
    """How a bare-text format writes a value (strings as they are, the rest as JSON), and
    what reading it back without a schema gives (JSON where the text decodes)."""
    if isinstance(value, str):
        try:
            return value, json.loads(value)
        except ValueError:
            return value, value
    return json.dumps(value, ensure_ascii=False), value


def text_without(*tags: str) -> st.SearchStrategy[str]:
    return prose.filter(lambda t: not any(tag in t for tag in tags))


def joined(calls: list[tuple[str, str, str]], texts: list[str]) -> str:
    return texts[0] + "".join(raw + t for (_, _, raw), t in zip(calls, texts[1:], strict=True))


@st.composite
def glm45_documents(draw: st.DrawFn) -> Document:
    count = draw(st.integers(0, 3))
    texts = [draw(text_without("<tool_call>")) for _ in range(count + 1)]
    calls = []
    for _ in range(count):
        name = draw(identifiers)
        arguments = draw(st.dictionaries(identifiers, values, max_size=3))
        written = {k: bare_value(v) for k, v in arguments.items()}
        written = {k: w for k, w in written.items() if "</arg_value>" not in w[0]}
        sep = draw(st.sampled_from(["", "\n"]))
        pairs = "".join(
            f"{sep}<arg_key>{k}</arg_key>{sep}<arg_value>{w[0]}</arg_value>"
            for k, w in written.items()
        )
        raw = f"<tool_call>{name}{pairs}{sep}</tool_call>"
        calls.append((name, compact({k: w[1] for k, w in written.items()}), raw))
    return calls, joined(calls, texts), "".join(texts)


GEMMA_QUOTE = '<|"|>'
gemma_keys = st.text(min_size=1, max_size=6).filter(
    lambda k: k == k.strip(" \t\r\n") and not any(c in k for c in ":{}[],") and "<|" not in k
)
gemma_strings = st.text(max_size=8).filter(lambda t: GEMMA_QUOTE not in t) | st.sampled_from(
    ["<|tool_call>", "<tool_call|>", "}", ",", "a:b", '"']
)
gemma_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | gemma_strings,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(gemma_keys, inner, max_size=3),
    max_leaves=6,
)


def gemma_text(value: Any) -> str:
    if isinstance(value, str):
        return GEMMA_QUOTE + value + GEMMA_QUOTE
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{gemma_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(gemma_text(v) for v in value) + "]"
    return json.dumps(value)


@st.composite
def gemma4_documents(draw: st.DrawFn) -> Document:
    count = draw(st.integers(0, 3))
    texts = [draw(text_without("<|tool_call>")) for _ in range(count + 1)]
    calls = []
    for _ in range(count):
        name = draw(identifiers)
        arguments = draw(st.dictionaries(gemma_keys, gemma_values, max_size=4))
        raw = f"<|tool_call>call:{name}{gemma_text(arguments)}<tool_call|>"
        calls.append((name, compact(arguments), raw))
    return calls, joined(calls, texts), "".join(texts)


DEEPSEEK = {
    "begin": "<｜tool▁calls▁begin｜>",
    "end": "<｜tool▁calls▁end｜>",
    "call": "<｜tool▁call▁begin｜>",
    "call_end": "<｜tool▁call▁end｜>",
    "sep": "<｜tool▁sep｜>",
}


@st.composite
def deepseek_v3_documents(draw: st.DrawFn) -> Document:
    before, after = draw(text_without(DEEPSEEK["begin"])), draw(text_without(DEEPSEEK["begin"]))
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        name, arguments = draw(identifiers), draw(json_arguments)
        body = json_text(draw, arguments)
        if draw(st.booleans()):  # V3: `function`, the name, a fenced block
            raw = f"{DEEPSEEK['call']}function{DEEPSEEK['sep']}{name}\n```json\n{body}\n```"
        else:  # V3.1
            raw = f"{DEEPSEEK['call']}{name}{DEEPSEEK['sep']}{body}"
        calls.append((name, compact(arguments), raw + DEEPSEEK["call_end"]))
    separator = draw(st.sampled_from(["", "\n"]))
    section = DEEPSEEK["begin"] + separator.join(raw for _, _, raw in calls) + DEEPSEEK["end"]
    return calls, before + section + after, before + after


@st.composite
def kimi_k2_documents(draw: st.DrawFn) -> Document:
    begin, end = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
    before, after = draw(text_without(begin)), draw(text_without(begin))
    calls = []
    for index in range(draw(st.integers(1, 3))):
        name, arguments = draw(identifiers), draw(json_arguments)
        prefix = draw(st.sampled_from(["functions.", ""]))
        raw = (
            f"<|tool_call_begin|>{prefix}{name}:{index}<|tool_call_argument_begin|>"
            f"{json_text(draw, arguments)}<|tool_call_end|>"
        )
        calls.append((name, compact(arguments), raw))
    section = begin + "".join(raw for _, _, raw in calls) + end
    return calls, before + section + after, before + after


DSML_END = "</｜DSML｜parameter>"


@st.composite
def deepseek_v32_documents(draw: st.DrawFn) -> Document:
    section = draw(st.sampled_from(["function_calls", "tool_calls", " calls"]))
    space = " " if section.startswith(" ") else ""
    opener = f"<｜DSML｜{section}>"
    before, after = draw(text_without("<｜DSML｜")), draw(text_without("<｜DSML｜"))
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(identifiers)
        arguments = draw(st.dictionaries(identifiers, values, max_size=3))
        params = []
        read: dict[str, Any] = {}
        for key, value in arguments.items():
            if isinstance(value, str):
                if DSML_END.replace(" ", "") in value.replace(" ", ""):
                    continue
                written, flag = value, "true"
            else:
                written, flag = json.dumps(value, ensure_ascii=False), "false"
            read[key] = value
            params.append(
                f'<｜DSML｜{space}parameter name="{key}" string="{flag}">{written}'
                f"</｜DSML｜{space}parameter>\n"
            )
        raw = f'<｜DSML｜{space}invoke name="{name}">\n{"".join(params)}</｜DSML｜{space}invoke>'
        calls.append((name, compact(read), raw))
    body = opener + "\n" + "\n".join(raw for _, _, raw in calls) + "\n</" + opener[1:]
    return calls, before + body + after, before + after


K3_END = "<|close|>argument<|sep|>"
K3_TYPES = {bool: "boolean", int: "number", float: "number", list: "array", dict: "object"}


@st.composite
def kimi_k3_documents(draw: st.DrawFn) -> Document:
    before = draw(text_without("<|open|>", "<|close|>"))
    calls = []
    for index in range(draw(st.integers(1, 3))):
        name = draw(identifiers)
        arguments = draw(st.dictionaries(identifiers, values, max_size=3))
        params = []
        read: dict[str, Any] = {}
        for key, value in arguments.items():
            if isinstance(value, str):
                if K3_END in value:
                    continue
                written, kind = value, "string"
            else:
                written = json.dumps(value, ensure_ascii=False)
                kind = "null" if value is None else K3_TYPES[type(value)]
            read[key] = value
            params.append(f'<|open|>argument key="{key}" type="{kind}"<|sep|>{written}{K3_END}')
        raw = (
            f'<|open|>call tool="{name}" index="{index + 1}"<|sep|>'
            + "".join(params)
            + "<|close|>call<|sep|>"
        )
        calls.append((name, compact(read), raw))
    tools = "<|open|>tools<|sep|>" + "".join(raw for _, _, raw in calls) + "<|close|>tools<|sep|>"
    text = before + "<|close|>response<|sep|>" + tools + "<|close|>message<|sep|>"
    return calls, text, before


HARMONY_TOKENS = ("<|end|>", "<|return|>", "<|call|>", "<|start|>", "<|channel|>", "<|message|>")


@st.composite
def harmony_documents(draw: st.DrawFn) -> Document:
    bodies = text_without(*HARMONY_TOKENS)
    messages = []
    content = []
    if draw(st.booleans()):
        messages.append(f"<|channel|>analysis<|message|>{draw(bodies)}<|end|>")
    if draw(st.booleans()):
        preamble = draw(bodies)
        content.append(preamble)
        messages.append(f"<|channel|>commentary<|message|>{preamble}<|end|>")
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        name, arguments = draw(identifiers), draw(json_arguments)
        body = json_text(draw, arguments)
        if draw(st.booleans()):
            header = f" to=functions.{name}<|channel|>commentary <|constrain|>json"
        else:
            header = f"<|channel|>commentary to=functions.{name} json"
        messages.append(f"{header}<|message|>{body}<|call|>")
        calls.append((name, compact(arguments), body))
    if draw(st.booleans()):
        final = draw(bodies)
        content.append(final)
        messages.append(f"<|channel|>final<|message|>{final}")
    # The prompt wrote the first `<|start|>assistant`.
    text = "<|start|>assistant".join(messages)
    return calls, text, "".join(content)


DOCUMENTS = {
    "hermes": hermes_documents(),
    "llama3_json": llama3_documents(),
    "mistral": mistral_documents(),
    "pythonic": pythonic_documents(),
    "xlam": xlam_documents(),
    "qwen3_xml": qwen3_documents(),
    "deepseek_v3": deepseek_v3_documents(),
    "deepseek_v32": deepseek_v32_documents(),
    "gemma4": gemma4_documents(),
    "glm45": glm45_documents(),
    "harmony": harmony_documents(),
    "kimi_k2": kimi_k2_documents(),
    "kimi_k3": kimi_k3_documents(),
    "qwen25_coder": qwen25_coder_documents(),
}

SOUP = [
    "<tool_call>",
    "</tool_call>",
    "<tool",
    "_call",
    ">",
    "</",
    "<function=f>",
    "<function=",
    "</function>",
    "<parameter=a>",
    "</parameter>",
    "[TOOL_CALLS]",
    "[TOOL_",
    "CALLS]",
    "[ARGS]",
    "[",
    "]",
    "(",
    ")",
    "<|python_tag|>",
    "<|python_",
    "<|python_start|>",
    "<|python_end|>",
    '{"name": "f", ',
    '"parameters": ',
    '"arguments": ',
    '{"a": 1}',
    '{"tool_calls": [',
    '[{"name": "f", "arguments": {"a": 1}}]',
    '"thought": "", ',
    "{",
    "}",
    '"',
    "\\",
    ",",
    ":",
    ";",
    "\n",
    " ",
    "x",
    "f",
    "é",
    "1",
    "'",
    '"""',
    "#",
    "f(a=1)",
    "=",
    "<|tool_call>call:f{",
    "a:",
    '<|"|>',
    "<tool_call|>",
    "<arg_key>a</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<tool_call>f",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "```json\n",
    "<｜DSML｜function_calls>",
    '<｜DSML｜invoke name="f">',
    '<｜DSML｜parameter name="a" string="false">',
    "</｜DSML｜parameter>",
    "</｜DSML｜invoke>",
    "</｜DSML｜function_calls>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|open|>tools<|sep|>",
    '<|open|>call tool="f"<|sep|>',
    '<|open|>argument key="a" type="number"<|sep|>',
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|close|>tools<|sep|>",
    "<|close|>response<|sep|>",
    "<|channel|>",
    "analysis",
    "commentary",
    "final",
    " to=functions.f",
    "<|message|>",
    "<|start|>assistant",
    "<|end|>",
    "<|call|>",
    "<|constrain|>json",
]
soup = st.lists(st.sampled_from(SOUP) | st.text(max_size=2), max_size=30).map("".join)


@st.composite
def splits(draw: st.DrawFn, text: str) -> list[str]:
    """The text cut at arbitrary points (sometimes every character)."""
    if draw(st.booleans()):
        return list(text)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=12))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


# Checks ------------------------------------------------------------------------------------


def stream(fmt: str, pieces: list[str]) -> tuple[list[StreamEvent], ParseResult]:
    parser = StreamParser(fmt)
    events: list[StreamEvent] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.close()
    return events, parser.result()


def assert_stream_matches(fmt: str, text: str, pieces: list[str]) -> list[StreamEvent]:
    expected = parse(text, fmt)
    events, result = stream(fmt, pieces)
    assert result == expected
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expected.text
    assert all(e.text for e in events if isinstance(e, TextDelta))
    finished = [e for e in events if isinstance(e, ParsedCallFinished)]
    assert [e.call for e in finished] == expected.calls
    assert sorted(e.index for e in finished) == list(range(len(expected.calls)))
    started: set[int] = set()
    done: set[int] = set()
    for event in events:  # every call: started once, then arguments, then finished once
        if isinstance(event, ParsedCallStarted):
            assert event.index == len(started)
            started.add(event.index)
        elif isinstance(event, ArgumentsDelta):
            assert event.index in started
            assert event.index not in done
        elif isinstance(event, ParsedCallFinished):
            assert event.index in started
            assert event.index not in done
            done.add(event.index)
    return events


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_rendered_calls_are_found_exactly_in_any_split(fmt: str, data: st.DataObject) -> None:
    calls, text, around = data.draw(DOCUMENTS[fmt])
    result = parse(text, fmt)
    assert [(c.name, c.arguments, c.raw) for c in result.calls] == calls
    assert result.text == around
    assert result.format == (fmt if calls else None)
    events = assert_stream_matches(fmt, text, data.draw(splits(text)))
    for index, (_, arguments, _) in enumerate(calls):  # previews add up to the arguments
        preview = "".join(
            e.text for e in events if isinstance(e, ArgumentsDelta) and e.index == index
        )
        assert json.loads(preview) == json.loads(arguments)


@pytest.mark.parametrize("fmt", [*FORMATS, "auto"])
@SETTINGS
@given(data=st.data())
def test_any_text_streams_like_it_parses(fmt: str, data: st.DataObject) -> None:
    text = data.draw(soup)
    assert_stream_matches(fmt, text, data.draw(splits(text)))


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_auto_reads_a_document_as_its_own_format_does(fmt: str, data: st.DataObject) -> None:
    calls, text, _ = data.draw(DOCUMENTS[fmt])
    if not calls:
        return
    auto = parse(text, "auto")
    if auto.format is not None:  # text before the calls may carry another format's sign
        assert_stream_matches("auto", text, data.draw(splits(text)))
    own = parse(text, fmt)
    if auto.format == fmt:
        assert auto == own


REASONING_SOUP = [
    "<think>",
    "</think>",
    "<thi",
    "[THINK]",
    "[/THINK]",
    "<|channel>thought",
    "<channel|>",
    "<|open|>think<|sep|>",
    "<|close|>think<|sep|>",
    "<|open|>response<|sep|>",
    "<tool_call>",
    " ",
    "\n",
    "x",
    "é",
]
reasoning_soup = st.lists(st.sampled_from(REASONING_SOUP) | st.text(max_size=2), max_size=20).map(
    "".join
)


@SETTINGS
@given(data=st.data())
def test_reasoning_splits_alike_in_any_split(data: st.DataObject) -> None:
    text = data.draw(reasoning_soup)
    opened = data.draw(st.booleans())
    expected = split_reasoning(text, open=opened)
    splitter = ReasoningSplitter(open=opened)
    pieces = [splitter.feed(piece) for piece in data.draw(splits(text))] + [splitter.close()]
    assert ("".join(r for r, _ in pieces), "".join(c for _, c in pieces)) == expected
