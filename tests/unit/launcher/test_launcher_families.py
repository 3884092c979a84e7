"""The model-family registry: detection by id and by local directory, and vLLM's names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk.launcher import (
    FAMILIES,
    LaunchError,
    ModelFamily,
    UnknownModelFamilyError,
    get_family,
    known_tool_parsers,
    resolve_family,
)
from toolcall_sdk.parsing import format_for
from toolcall_sdk.vllm_plugin import PARSER_NAMES

# Names registered in vllm-project/vllm at commit 0064cc9cb1ae57b1308015d48a57462fa27a68f2
# (`vllm/tool_parsers/__init__.py`, `vllm/reasoning/__init__.py`, `examples/`): the
# registry must use vLLM's exact spellings. test_launcher_vllm.py checks the installed vLLM.
VLLM_TOOL_PARSERS = frozenset(
    [
        "apertus",
        "cohere_command3",
        "cohere_command4",
        "deepseek_v3",
        "deepseek_v31",
        "deepseek_v32",
        "deepseek_v4",
        "ernie45",
        "functiongemma",
        "gemma4",
        "gigachat3",
        "glm45",
        "glm47",
        "granite",
        "granite-20b-fc",
        "granite4",
        "hermes",
        "hunyuan_a13b",
        "hy_v3",
        "inkling",
        "internlm",
        "jamba",
        "kimi_k2",
        "kimi_k3",
        "lfm2",
        "llama3_json",
        "llama4_json",
        "llama4_pythonic",
        "longcat",
        "mimo",
        "minicpm5",
        "minimax_m2",
        "minimax_m3",
        "mistral",
        "olmo3",
        "openai",
        "phi4_mini_json",
        "poolside_v1",
        "pythonic",
        "qwen3_coder",
        "qwen3_xml",
        "seed_oss",
        "solar_open2",
        "step3",
        "step3p5",
        "xlam",
    ]
)
VLLM_REASONING_PARSERS = frozenset(
    [
        "cohere_command3",
        "cohere_command4",
        "deepseek_r1",
        "deepseek_v3",
        "deepseek_v4",
        "ernie45",
        "gemma4",
        "glm45",
        "glm47",
        "granite",
        "holo2",
        "hunyuan_a13b",
        "hy_v3",
        "inkling",
        "kimi_k2",
        "kimi_k3",
        "mimo",
        "minimax_m2",
        "minimax_m2_append_think",
        "minimax_m3",
        "mistral",
        "nemotron_v3",
        "olmo3",
        "openai_gptoss",
        "poolside_v1",
        "qwen3",
        "seed_oss",
        "solar_open2",
        "step3",
        "step3p5",
    ]
)
VLLM_TOOL_TEMPLATES = frozenset(
    f"tool_chat_template_{n}.jinja"
    for n in [
        "deepseekr1",
        "deepseekv3",
        "deepseekv31",
        "granite",
        "granite_20b_fc",
        "hermes",
        "internlm2_tool",
        "llama3.1_json",
        "llama3.2_json",
        "llama3.2_pythonic",
        "llama4_json",
        "llama4_pythonic",
        "mistral",
        "mistral_parallel",
        "qwen3coder",
        "toolace",
        "xlam_llama",
        "xlam_qwen",
    ]
)

# The families: model id → (parser, chat template, reasoning parser).
EXPECTED = {
    "Qwen/Qwen2.5-7B-Instruct": ("hermes", None, None),
    "NousResearch/Hermes-2-Pro-Llama-3-8B": ("hermes", None, None),
    "NousResearch/Hermes-3-Llama-3.1-8B": ("hermes", None, None),
    "Qwen/QwQ-32B": ("hermes", None, "deepseek_r1"),
    "meta-llama/Llama-3.1-8B-Instruct": (
        "llama3_json",
        "tool_chat_template_llama3.1_json.jinja",
        None,
    ),
    "meta-llama/Meta-Llama-3.1-70B-Instruct": (
        "llama3_json",
        "tool_chat_template_llama3.1_json.jinja",
        None,
    ),
    "meta-llama/Llama-3.3-70B-Instruct": (
        "llama3_json",
        "tool_chat_template_llama3.1_json.jinja",
        None,
    ),
    "meta-llama/Llama-3.2-11B-Vision-Instruct": (
        "llama3_json",
        "tool_chat_template_llama3.2_json.jinja",
        None,
    ),
    "meta-llama/Llama-3.2-1B-Instruct": (
        "pythonic",
        "tool_chat_template_llama3.2_pythonic.jinja",
        None,
    ),
    "meta-llama/Llama-3.2-3B-Instruct": (
        "pythonic",
        "tool_chat_template_llama3.2_pythonic.jinja",
        None,
    ),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": (
        "llama4_pythonic",
        "tool_chat_template_llama4_pythonic.jinja",
        None,
    ),
    "mistralai/Mistral-7B-Instruct-v0.3": ("mistral", None, None),
    "Team-ACE/ToolACE-8B": ("pythonic", "tool_chat_template_toolace.jinja", None),
    "Salesforce/Llama-xLAM-2-8b-fc-r": ("xlam", "tool_chat_template_xlam_llama.jinja", None),
    "Salesforce/xLAM-2-3b-fc-r": ("xlam", "tool_chat_template_xlam_qwen.jinja", None),
    "ibm-granite/granite-3.1-8b-instruct": ("granite", None, None),
    "ibm-granite/granite-3.0-8b-instruct": ("granite", "tool_chat_template_granite.jinja", None),
    "ibm-granite/granite-4.0-h-small": ("granite4", None, None),
    "internlm/internlm2_5-7b-chat": ("internlm", "tool_chat_template_internlm2_tool.jinja", None),
    "deepseek-ai/DeepSeek-V3-0324": ("deepseek_v3", "tool_chat_template_deepseekv3.jinja", None),
    "deepseek-ai/DeepSeek-R1-0528": (
        "deepseek_v3",
        "tool_chat_template_deepseekr1.jinja",
        "deepseek_r1",
    ),
    "deepseek-ai/DeepSeek-V3.1": ("deepseek_v31", "tool_chat_template_deepseekv31.jinja", None),
    "openai/gpt-oss-20b": ("openai", None, None),
    "zai-org/GLM-4.5-Air": ("glm45", None, "glm45"),
    "Qwen/Qwen3-8B": ("hermes", None, "qwen3"),
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": ("qwen3_coder", None, None),
    "Qwen/Qwen2.5-Coder-0.5B-Instruct": ("toolcall_qwen25_coder", None, None),
    "moonshotai/Kimi-K2-Instruct": ("kimi_k2", None, None),
    "moonshotai/Kimi-K2-Thinking": ("kimi_k2", None, "kimi_k2"),
}


@pytest.mark.parametrize(("model", "expected"), EXPECTED.items())
def test_model_ids_resolve_to_their_family(
    model: str, expected: tuple[str, str | None, str | None]
) -> None:
    family = resolve_family(model)

    assert (family.tool_call_parser, family.chat_template, family.reasoning_parser) == expected


def test_matching_is_case_insensitive() -> None:
    assert resolve_family("qwen/qwen2.5-7b-instruct").name == "qwen2.5"
    assert resolve_family("META-LLAMA/LLAMA-3.1-8B-INSTRUCT").name == "llama-3.1"


@pytest.mark.parametrize(
    "model",
    [
        "Qwen/Qwen2.5-Coder-0.5B-Instruct",
        "Qwen2.5-Coder-1.5B-Instruct",
        "qwen2.5-coder-7b-instruct",
        "QWEN/QWEN2.5-CODER-32B-INSTRUCT",
        "Qwen/Qwen2.5-Coder-14B-Instruct-AWQ",
    ],
)
def test_qwen25_coder_ids_take_the_plugin_parser(model: str) -> None:
    family = resolve_family(model)

    assert family.name == "qwen2.5-coder"
    assert family.tool_call_parser == PARSER_NAMES["qwen25_coder"] == "toolcall_qwen25_coder"
    assert format_for(model) == "qwen25_coder"


@pytest.mark.parametrize(
    ("model", "family", "fmt"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5", "hermes"),
        ("Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5", "hermes"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder", "qwen3_xml"),
        ("Qwen/Qwen2.5-Math-7B-Instruct", "qwen2.5", "hermes"),
    ],
)
def test_other_qwen_models_keep_their_parser(model: str, family: str, fmt: str) -> None:
    assert resolve_family(model).name == family
    assert format_for(model) == fmt


def test_every_family_example_resolves_to_its_own_family() -> None:
    for family in FAMILIES:
        for example in family.examples:
            if family.name == "mistral-hf":
                continue  # chosen by name or for local folders without params.json
            assert resolve_family(example) is family, example


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_names_are_vllm_registered_names(family: ModelFamily) -> None:
    # A format no vLLM parser reads is read by the SDK's plugin, which launch loads.
    plugin = set(PARSER_NAMES.values())
    assert family.tool_call_parser in VLLM_TOOL_PARSERS | plugin
    reasoning = family.reasoning_parser
    assert reasoning is None or reasoning in VLLM_REASONING_PARSERS
    template = family.chat_template
    assert template is None or template in VLLM_TOOL_TEMPLATES


def test_family_names_are_unique_and_every_pattern_compiles() -> None:
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
    assert get_family("LLAMA-3.2-JSON").tool_call_parser == "llama3_json"


def test_mistral_uses_its_own_checkpoint_format() -> None:
    family = resolve_family("mistralai/Mistral-7B-Instruct-v0.3")

    assert family.extra_args == (
        "--tokenizer-mode",
        "mistral",
        "--config-format",
        "mistral",
        "--load-format",
        "mistral",
    )


def _model_dir(root: Path, name: str, config: dict[str, object]) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def test_local_directory_is_recognised_by_name_or_path(tmp_path: Path) -> None:
    folder = _model_dir(
        tmp_path,
        "checkpoint-1200",
        {
            "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct",
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
        },
    )

    assert resolve_family(folder).name == "llama-3.1"
    assert resolve_family(str(folder)).name == "llama-3.1"


def test_local_directory_is_recognised_by_its_own_name(tmp_path: Path) -> None:
    folder = _model_dir(tmp_path, "Qwen3-Coder-30B-A3B-Instruct", {"model_type": "qwen3_moe"})

    assert resolve_family(folder).name == "qwen3-coder"


def test_local_directory_is_recognised_by_model_type_and_architectures(tmp_path: Path) -> None:
    tiny = _model_dir(
        tmp_path, "tiny", {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}
    )
    oss = _model_dir(tmp_path, "weights", {"architectures": ["GptOssForCausalLM"]})

    assert resolve_family(tiny).tool_call_parser == "hermes"
    assert resolve_family(oss).tool_call_parser == "openai"


def test_local_mistral_without_params_json_uses_the_transformers_format(tmp_path: Path) -> None:
    hf = _model_dir(tmp_path, "my-mistral", {"model_type": "mistral"})
    native = _model_dir(tmp_path, "Mistral-7B-Instruct-v0.3", {"model_type": "mistral"})
    (native / "params.json").write_text("{}", encoding="utf-8")

    assert resolve_family(hf).name == "mistral-hf"
    assert resolve_family(hf).chat_template == "tool_chat_template_mistral_parallel.jinja"
    assert resolve_family(native).name == "mistral"


def test_unknown_model_error_says_how_to_pass_a_parser() -> None:
    with pytest.raises(UnknownModelFamilyError) as caught:
        resolve_family("acme/secret-model-7b")

    error = caught.value
    assert isinstance(error, LaunchError)
    assert isinstance(error, ToolCallError)
    assert error.model == "acme/secret-model-7b"
    assert error.known_parsers == known_tool_parsers()
    message = str(error)
    assert "toolcall-sdk launch acme/secret-model-7b --tool-call-parser NAME" in message
    assert "--family NAME" in message
    for parser in ("hermes", "llama3_json", "mistral", "pythonic", "xlam"):
        assert parser in message


def test_unknown_local_directory_error_shows_its_config(tmp_path: Path) -> None:
    folder = _model_dir(
        tmp_path, "mystery", {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    )

    with pytest.raises(UnknownModelFamilyError, match=r"model_type='llama'"):
        resolve_family(folder)


def test_unknown_family_name() -> None:
    with pytest.raises(UnknownModelFamilyError, match="Known families: xlam-llama"):
        get_family("nope")


def test_r1_distills_are_not_taken_for_deepseek_r1() -> None:
    with pytest.raises(UnknownModelFamilyError):
        resolve_family("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B")


def test_docs_table_matches_the_registry() -> None:
    docs = (Path(__file__).parents[3] / "docs" / "launch.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip(): line for line in docs.splitlines() if line.startswith("| `")
    }
    for family in FAMILIES:
        row = rows.get(f"`{family.name}`")
        assert row is not None, f"docs/launch.md has no row for {family.name}"
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        assert cells[2] == f"`{family.tool_call_parser}`", family.name
        assert cells[3] == (f"`{family.chat_template}`" if family.chat_template else "model's own")
        assert cells[4] == (f"`{family.reasoning_parser}`" if family.reasoning_parser else "—")
