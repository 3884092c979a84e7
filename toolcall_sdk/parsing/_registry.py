"""Format names: ours, vLLM's `--tool-call-parser` names, model ids and model families."""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk._families import FAMILIES
from toolcall_sdk.parsing import (
    deepseek_v3,
    deepseek_v32,
    gemma4,
    glm45,
    harmony,
    hermes,
    kimi_k2,
    kimi_k3,
    llama3_json,
    mistral,
    pythonic,
    qwen3_xml,
    qwen25_coder,
    xlam,
)
from toolcall_sdk.parsing._base import FormatStream

__all__ = ["FORMATS", "STREAMS", "format_for"]

STREAMS: Final[dict[str, type[FormatStream]]] = {
    hermes.FORMAT: hermes.HermesStream,
    llama3_json.FORMAT: llama3_json.Llama3JsonStream,
    mistral.FORMAT: mistral.MistralStream,
    pythonic.FORMAT: pythonic.PythonicStream,
    qwen3_xml.FORMAT: qwen3_xml.Qwen3XmlStream,
    deepseek_v3.FORMAT: deepseek_v3.DeepSeekV3Stream,
    deepseek_v32.FORMAT: deepseek_v32.DeepSeekV32Stream,
    gemma4.FORMAT: gemma4.Gemma4Stream,
    glm45.FORMAT: glm45.Glm45Stream,
    harmony.FORMAT: harmony.HarmonyStream,
    kimi_k2.FORMAT: kimi_k2.KimiK2Stream,
    kimi_k3.FORMAT: kimi_k3.KimiK3Stream,
    xlam.FORMAT: xlam.XlamStream,
    qwen25_coder.FORMAT: qwen25_coder.Qwen25CoderStream,
}
FORMATS: Final = tuple(STREAMS)
# The SDK's vLLM plugin registers one parser per format under this prefix (`toolcall_hermes`).
_PLUGIN_PREFIX: Final = "toolcall_"

# vLLM parser names whose output one of our formats reads, and the names of the SDK plugin's.
_PARSER_FORMATS: Final = {
    "hermes": hermes.FORMAT,
    "llama3_json": llama3_json.FORMAT,
    "llama4_json": llama3_json.FORMAT,
    "mistral": mistral.FORMAT,
    "pythonic": pythonic.FORMAT,
    "llama4_pythonic": pythonic.FORMAT,
    "qwen3_coder": qwen3_xml.FORMAT,
    "qwen3_xml": qwen3_xml.FORMAT,
    "deepseek_v3": deepseek_v3.FORMAT,
    "deepseek_v31": deepseek_v3.FORMAT,
    "deepseek_v32": deepseek_v32.FORMAT,
    "deepseek_v4": deepseek_v32.FORMAT,
    "deepseek_v41": deepseek_v32.FORMAT,
    "gemma4": gemma4.FORMAT,
    "glm45": glm45.FORMAT,
    "glm47": glm45.FORMAT,
    "openai": harmony.FORMAT,
    "harmony": harmony.FORMAT,
    "kimi_k2": kimi_k2.FORMAT,
    "kimi_k3": kimi_k3.FORMAT,
    "xlam": xlam.FORMAT,
    # No vLLM parser reads it (vLLM issue #32926): the SDK's plugin does.
    "qwen25_coder": qwen25_coder.FORMAT,
    **{_PLUGIN_PREFIX + fmt: fmt for fmt in FORMATS},
}

# Model ids → the format their models write, tried in order (the first pattern found in the
# repository name wins, case-insensitively), so more specific patterns come first. A
# `None` format stops the search: the family writes a format no parser here reads.
_MODEL_FORMATS: Final[tuple[tuple[re.Pattern[str], str | None], ...]] = tuple(
    (re.compile(pattern, re.IGNORECASE), fmt)
    for pattern, fmt in (
        (r"xlam", xlam.FORMAT),
        (r"toolace", pythonic.FORMAT),
        (r"hermes-[23]", hermes.FORMAT),
        # Qwen3-Coder and Qwen3.5 and later write the XML format; Qwen2.5-Coder bare JSON
        # call objects; Qwen2.5, QwQ and the other Qwen3 models write Hermes JSON.
        (r"qwen3-coder|qwen3\.[5-9]|qwen3\.\d\d|qwen[4-9]", qwen3_xml.FORMAT),
        (r"qwen2\.5-coder", qwen25_coder.FORMAT),
        (r"qwen|qwq", hermes.FORMAT),
        (r"deepseek-v3\.[2-9]|deepseek-v[4-9]", deepseek_v32.FORMAT),
        (r"deepseek-(v3|r1)(?!-distill)", deepseek_v3.FORMAT),
        (r"glm-4\.[5-9]|glm-[5-9]", glm45.FORMAT),
        (r"kimi-k3", kimi_k3.FORMAT),
        (r"kimi-k2", kimi_k2.FORMAT),
        (r"gpt-oss", harmony.FORMAT),
        (r"gemma-?4", gemma4.FORMAT),
        (r"llama-4|llama-3\.2-[13]b", pythonic.FORMAT),
        (r"llama-?3", llama3_json.FORMAT),
        (r"mistral|mixtral|ministral|magistral|codestral|devstral", mistral.FORMAT),
    )
)


def format_for(name: str) -> str | None:
    """The format to read a model's output in.

    Args:
        name: One of `FORMATS`, a vLLM `--tool-call-parser` name (`qwen3_coder`,
            `llama4_pythonic`, ...) or the SDK plugin's (`toolcall_qwen25_coder`), a launcher
            family name (`qwen2.5`, `llama-3.2-json`), or a model id
            (`Qwen/Qwen2.5-7B-Instruct`).

    Returns:
        The format, or None when the name says nothing we can read (then detect it).
    """
    key = name.strip().lower()
    found = _PARSER_FORMATS.get(key)
    if found is not None:
        return found
    parser = _family_parser(name.strip(), by_pattern=False)
    if parser is not None:
        return _PARSER_FORMATS.get(parser)
    repository = _repository(name)
    if repository:
        for pattern, fmt in _MODEL_FORMATS:
            if pattern.search(repository):
                return fmt
    parser = _family_parser(name.strip(), by_pattern=True)
    return _PARSER_FORMATS.get(parser) if parser else None


def _repository(name: str) -> str:
    return name.strip().rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]


def _family_parser(name: str, *, by_pattern: bool) -> str | None:
    key = name.lower()
    if not by_pattern:
        for family in FAMILIES:
            if family.name == key:
                return family.tool_call_parser
        return None
    repository = _repository(name)
    for family in FAMILIES:
        if repository and family.matches(repository):
            return family.tool_call_parser
    return None
