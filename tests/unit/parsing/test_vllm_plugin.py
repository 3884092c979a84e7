"""The vLLM tool-parser plugin's decisions, tested without vLLM.

The plugin file only copies what `toolcall_sdk.vllm_plugin` decides into vLLM's classes;
those decisions are tested here on answers in every format whose tags arrive split at any
character (Hermes in depth).
The plugin on a real server is tested in tests/integration/test_plugin_live.py.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_sdk.vllm_plugin import (
    PARSER_NAME,
    CallPiece,
    FormatDeltas,
    HermesDeltas,
    Piece,
    extract,
    plugin_args,
    plugin_path,
)

START, END = "<tool_call>", "</tool_call>"


def ids() -> Callable[[], str]:
    """Predictable call ids: call-0, call-1, ..."""
    counter = itertools.count()
    return lambda: f"call-{next(counter)}"


def stream(text: str, cuts: list[int], *, close: bool = False) -> list[Piece]:
    """Feed `text` cut at `cuts` and return every piece sent."""
    deltas = HermesDeltas(ids())
    bounds = [0, *sorted(set(cuts)), len(text)]
    pieces = [deltas.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    if close:
        pieces.append(deltas.close())
    return [p for p in pieces if p is not None]


def assemble(pieces: list[Piece]) -> tuple[str, list[tuple[str, str, str]]]:
    """Content and (id, name, arguments) per call, as an OpenAI client joins the deltas."""
    content = "".join(p.content or "" for p in pieces)
    calls: dict[int, list[str]] = {}
    for piece in pieces:
        for call in piece.calls:
            entry = calls.setdefault(call.index, ["", "", ""])
            if call.id is not None:
                assert entry[0] == "", "a call's id is sent once"
                entry[0] = call.id
                entry[1] = call.name or ""
            else:
                assert call.name is None, "a call's name is sent once, with its id"
            entry[2] += call.arguments or ""
    assert sorted(calls) == list(range(len(calls))), "indexes count calls from 0"
    return content, [(i, n, a) for i, n, a in (calls[k] for k in sorted(calls))]


def partial_tag_chunks(pieces: list[Piece]) -> list[str]:
    bad = []
    for piece in pieces:
        chunk = piece.content or ""
        if "tool_call" in chunk or any(
            chunk.endswith(tag[:k]) for tag in (START, END) for k in range(1, len(tag))
        ):
            bad.append(chunk)
    return bad


ANSWER = (
    "Let me check the weather.\n"
    f'{START}\n{{"name": "get_weather", "arguments": {{"city": "Hà Nội", "unit": "celsius"}}}}\n'
    f"{END}\n"
    f'{START}\n{{"name": "get_order_status", "arguments": {{"order_id": "ORD-12345"}}}}\n{END}'
    "\nDone."
)


def test_plugin_file_ships_in_the_package() -> None:
    path = plugin_path()

    assert path.is_file()
    assert path.name == "hermes_buffered.py"
    assert path.parent.name == "vllm_plugin"
    assert plugin_args() == [
        "--tool-parser-plugin",
        str(path),
        "--tool-call-parser",
        "toolcall_hermes",
    ]
    assert PARSER_NAME == "toolcall_hermes"
    assert "register_module(name=PARSER_NAME" in path.read_text(encoding="utf-8")


def test_the_sdk_never_imports_the_plugin_file() -> None:
    import toolcall_sdk
    import toolcall_sdk.launcher

    assert toolcall_sdk.launcher.__name__ == "toolcall_sdk.launcher"
    assert "toolcall_sdk.vllm_plugin.hermes_buffered" not in sys.modules
    assert "hermes_buffered" not in sys.modules


def test_tag_split_into_single_characters_is_never_sent_as_content() -> None:
    pieces = stream(ANSWER, list(range(1, len(ANSWER))))

    content, calls = assemble(pieces)
    assert partial_tag_chunks(pieces) == []
    assert content == "Let me check the weather.\n\n\nDone."
    assert calls == [
        ("call-0", "get_weather", '{"city": "Hà Nội", "unit": "celsius"}'),
        ("call-1", "get_order_status", '{"order_id": "ORD-12345"}'),
    ]


def test_tokens_as_a_split_tag_model_writes_them() -> None:
    tokens = ["Sure", ".", "<", "tool", "_", "call", ">", "\n", '{"name": "get_time", ']
    tokens += ['"arguments": {}}', "\n", "</", "tool", "_call", ">"]

    deltas = HermesDeltas(ids())
    sent = [deltas.feed(t) for t in tokens]

    assert sent[:2] == [Piece("Sure", ()), Piece(".", ())]
    assert sent[2:8] == [None] * 6  # "<tool_call>\n" held back until the name is read
    assert sent[8] == Piece(None, (CallPiece(0, "call-0", "get_time"),))
    assert sent[9] == Piece(None, (CallPiece(0, arguments="{}"),))
    assert sent[10:] == [None] * 5
    assert deltas.names == ["get_time"]
    assert deltas.arguments == ["{}"]


def test_text_that_only_looks_like_a_tag_is_released() -> None:
    text = "Use a <b> tag, or <tool_calls> plural, 3 < 4."

    pieces = stream(text, list(range(1, len(text))), close=True)

    assert assemble(pieces) == (text, [])
    assert extract(text).calls == []
    assert extract(text).content == text


def test_whole_answer_matches_the_streamed_one() -> None:
    found = extract(ANSWER, ids())

    assert found.content == "Let me check the weather.\n\n\nDone."
    assert [(c.id, c.name, c.arguments) for c in found.calls] == [
        ("call-0", "get_weather", '{"city": "Hà Nội", "unit": "celsius"}'),
        ("call-1", "get_order_status", '{"order_id": "ORD-12345"}'),
    ]


def test_answer_with_only_calls_has_no_content() -> None:
    answer = f'{START}\n{{"name": "get_time", "arguments": {{}}}}\n{END}\n'

    found = extract(answer)

    assert found.content is None
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}")]


def test_call_without_arguments_key_gets_empty_arguments_at_its_end() -> None:
    answer = f'{START}{{"name": "get_time"}}{END}'
    pieces = stream(answer, list(range(1, len(answer))))

    assert assemble(pieces)[1] == [("call-0", "get_time", "{}")]
    assert [(c.name, c.arguments) for c in extract(answer).calls] == [("get_time", "{}")]


def test_call_without_a_readable_name_stays_text() -> None:
    answer = f"Hmm {START}not json at all{END} ok"

    pieces = stream(answer, list(range(1, len(answer))))

    assert assemble(pieces) == (answer, [])
    assert extract(answer).calls == []
    assert extract(answer).content == answer


def test_unterminated_call_is_sent_before_the_stream_ends() -> None:
    # vLLM gives a tool parser no end-of-stream call: what the client needs is sent already.
    answer = f'{START}\n{{"name": "get_weather", "arguments": {{"city": "Oslo"}}}}'

    pieces = stream(answer, list(range(1, len(answer))))

    assert assemble(pieces) == ("", [("call-0", "get_weather", '{"city": "Oslo"}')])
    assert [(c.name, c.arguments) for c in extract(answer).calls] == [
        ("get_weather", '{"city": "Oslo"}')
    ]


def test_arguments_that_are_not_json_are_kept_as_written() -> None:
    answer = f'{START}{{"name": "f", "arguments": {{"a": 1,}}}}{END}'

    found = extract(answer)

    assert [c.name for c in found.calls] == ["f"]
    assert json.loads(found.calls[0].arguments.replace(",}", "}")) == {"a": 1}


NAMES = st.sampled_from(["get_weather", "create_invoice", "f"])
VALUES = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.text(st.characters(codec="utf-8"), max_size=12),
)
ARGS = st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), VALUES, max_size=4)
# Text around calls: anything without a whole tag, tag-like fragments included.
TEXT = (
    st.lists(st.sampled_from([*"ab <>/_\nxé", "<tool", "_call", "</tool_call", "tool_call>"]))
    .map("".join)
    .filter(lambda t: START not in t and END not in t)
)


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, object]]]:
    calls = draw(st.lists(st.tuples(NAMES, ARGS), max_size=3))
    texts = [draw(TEXT) for _ in range(len(calls) + 1)]
    parts = [texts[0]]
    for (name, args), after in zip(calls, texts[1:], strict=True):
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        parts += [START, draw(st.sampled_from(["", "\n"])), body, "\n", END, after]
    text = "".join(parts)
    # The start of a tag that ends the text is the one thing a parser must still hold back.
    return text, "".join(texts), [(n, a) for n, a in calls]


@given(answer=answers(), data=st.data())
def test_any_split_gives_the_whole_answer(
    answer: tuple[str, str, list[tuple[str, object]]], data: st.DataObject
) -> None:
    text, around, expected = answer
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=40))

    pieces = stream(text, cuts, close=True)
    content, calls = assemble(pieces)
    whole = extract(text)

    # Equal text proves that no part of a tag was released as content.
    assert [(n, json.loads(a)) for _, n, a in calls] == expected
    assert [(c.name, c.arguments) for c in whole.calls] == [(n, a) for _, n, a in calls]
    assert content == around
    assert whole.content == (around if around.strip() else None)


def test_the_plugin_class_inside_vllm() -> None:
    """Run only where vLLM is importable (the CPU build lives in its own venv)."""
    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM is not installed for this Python; tests/integration runs the plugin")
    from vllm.utils.import_utils import import_plugin

    module = import_plugin(str(plugin_path()))
    parser = module.BufferedHermesToolParser(tokenizer=object())
    info = parser.extract_tool_calls(ANSWER, None)

    assert info.tools_called
    assert [c.function.name for c in info.tool_calls] == ["get_weather", "get_order_status"]
    assert info.content == "Let me check the weather.\n\n\nDone."


# Every format -------------------------------------------------------------------------------

SAMPLES = {
    "hermes": 'Checking. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
    "llama3_json": '<|python_tag|>{"name": "f", "parameters": {"a": 1}}',
    "mistral": 'Checking. [TOOL_CALLS]f[ARGS]{"a": 1}',
    "pythonic": "[f(a=1)]",
    "xlam": '[{"name": "f", "arguments": {"a": 1}}]',
    # Its bare and fenced call objects need the offered tools: test_vllm_plugin_qwen25_coder.py.
    "qwen25_coder": 'Checking. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
    "qwen3_xml": "Checking. <tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"
    "</function>\n</tool_call>",
    "deepseek_v3": "Checking. <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>"
    '{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v32": 'Checking. <｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n'
    '<｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
    "</｜DSML｜function_calls>",
    "gemma4": "Checking. <|tool_call>call:f{a:1}<tool_call|>",
    "glm45": "Checking. <tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
    "harmony": "<|channel|>commentary<|message|>Checking. <|end|><|start|>assistant "
    'to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>',
    "kimi_k2": "Checking. <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
    '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
    "kimi_k3": 'Checking. <|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" '
    'index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|>'
    "<|close|>call<|sep|><|close|>tools<|sep|>",
}


def test_a_parser_name_for_every_format() -> None:
    from toolcall_sdk.parsing import FORMATS
    from toolcall_sdk.vllm_plugin import PARSER_NAMES, parser_name

    assert set(SAMPLES) == set(FORMATS)
    assert {fmt: f"toolcall_{fmt}" for fmt in FORMATS} == PARSER_NAMES
    assert parser_name("Qwen/Qwen3.5-9B") == "toolcall_qwen3_xml"
    assert parser_name("glm47") == "toolcall_glm45"
    assert parser_name("Qwen/Qwen2.5-Coder-0.5B-Instruct") == "toolcall_qwen25_coder"
    assert plugin_args("openai/gpt-oss-20b")[-2:] == ["--tool-call-parser", "toolcall_harmony"]
    with pytest.raises(ValueError, match="the plugin reads hermes"):
        parser_name("no-such-model")


@pytest.mark.parametrize(("fmt", "answer"), SAMPLES.items())
def test_every_format_streams_like_its_whole_answer(fmt: str, answer: str) -> None:
    deltas = FormatDeltas(fmt, ids())
    pieces = [deltas.feed(c) for c in answer] + [deltas.close()]
    content, calls = assemble([p for p in pieces if p is not None])
    whole = extract(answer, ids(), format=fmt)

    assert [(n, json.loads(a)) for _, n, a in calls] == [("f", {"a": 1})]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in whole.calls] == [
        ("call-0", "f", {"a": 1})
    ]
    expected = "" if fmt in ("llama3_json", "pythonic", "xlam") else "Checking. "
    assert content == expected
    assert whole.content == (expected or None)


def test_bare_text_values_are_typed_by_the_request_schemas() -> None:
    answer = "<tool_call>f<arg_key>code</arg_key><arg_value>007</arg_value>"
    answer += "<arg_key>n</arg_key><arg_value>7</arg_value></tool_call>"
    schemas = {"f": {"properties": {"code": {"type": "string"}, "n": {"type": "integer"}}}}

    (call,) = extract(answer, format="glm45", schemas=schemas).calls

    assert json.loads(call.arguments) == {"code": "007", "n": 7}
