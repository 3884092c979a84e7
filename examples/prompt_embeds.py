"""Prompt embeddings: embedded content through the tool pipeline, and a completion from them.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
    TOOLCALL_MODEL_DIR=/path/to/model python examples/prompt_embeds.py

against a vLLM started with `--enable-prompt-embeds` (`toolcall-sdk launch --demo --
--enable-prompt-embeds`); TOOLCALL_MODEL_DIR is the served model's folder, whose tokenizer
and embedding matrix embed the prompts. Without TOOLCALL_BASE_URL it runs offline against
the SDK's scripted model with a toy tokenizer and a random embedding matrix. Needs torch
(`pip install "toolcall-sdk[embeds]"`, or `pip install -e ".[embeds]"` in a checkout);
without it the program prints the install line for this copy and exits 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from toolcall_sdk import PromptEmbedsError, ToolCallClient, install_command, tool
from toolcall_sdk.embeds import embedding_matrix, part, templated_embeds

try:
    import torch
except ImportError:  # one line naming the install for this copy, not a traceback
    print(
        "examples/prompt_embeds.py needs 'torch', which is not installed: run "
        f"`{install_command('embeds')}`",
        file=sys.stderr,
    )
    raise SystemExit(2) from None


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city.

    Args:
        city: The city name.
        unit: celsius or fahrenheit.
    """
    return f"18 degrees {unit} in {city}"


class WordTokenizer:
    """A toy stand-in for a Hugging Face tokenizer: one id per word, a tiny chat template."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def apply_chat_template(self, messages: Any, **options: Any) -> str:
        turns = [f"<{m['role']}> {m['content']} <end>" for m in messages]
        return " ".join([*turns, "<assistant>" if options.get("add_generation_prompt") else ""])

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [self.ids.setdefault(word, len(self.ids)) for word in text.split()]


def offline() -> tuple[ToolCallClient, Any, Any, Any]:
    from toolcall_sdk.testing import ScriptedModel, text, tool_call

    scripted = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text(" It is sunny in Oslo.")],
        max_model_len=512,  # what vLLM reports in GET /v1/models
    )
    client = ToolCallClient(
        base_url=scripted.base_url,
        model="scripted",
        tools=[get_weather],
        router="always",
        hidden_size=16,
        http_client=scripted.http_client(),
    )
    matrix = torch.randn(64, 16, generator=torch.Generator().manual_seed(0))
    return client, WordTokenizer(), matrix, scripted


def live(base_url: str) -> tuple[ToolCallClient, Any, Any, None]:
    from transformers import AutoTokenizer

    model_dir = Path(os.environ["TOOLCALL_MODEL_DIR"])
    # The demo model keeps its tokenizer in a subfolder; most models keep it beside the weights.
    tokenizer_dir = model_dir / "tokenizer" if (model_dir / "tokenizer").is_dir() else model_dir
    matrix = embedding_matrix(model_dir)
    client = ToolCallClient(
        base_url=base_url,
        model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
        tools=[get_weather],
        router="always",
        max_tokens=64,
        hidden_size=int(matrix.shape[1]),
    )
    return client, AutoTokenizer.from_pretrained(str(tokenizer_dir)), matrix, None


def main() -> None:
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    client, tokenizer, matrix, scripted = live(base_url) if base_url else offline()

    # 1. Chat: a content part holds the embedded content only; the server adds the template.
    question = "What is the weather in Oslo ?"
    content = matrix[tokenizer.encode(question, add_special_tokens=False)]
    result = client.call([{"role": "user", "content": [part(content)]}])
    call = result.calls[0]
    print(f"chat call: {call.name}({call.arguments!r}) after {len(result.attempts)} attempt(s)")

    # 2. Completions: the whole templated prompt, embedded (no template is applied there).
    prompt = templated_embeds(question, tokenizer=tokenizer, embed=matrix.__getitem__)
    answer = client.complete_embeds(prompt, max_tokens=16)
    print(f"completion from {prompt.shape[0]} embedded tokens: {answer.text!r}")

    # 3. A tensor of the wrong width never leaves the client.
    sent_before = len(scripted.requests) if scripted else 0
    try:
        client.call([{"role": "user", "content": [part(torch.zeros(3, 12))]}])
    except PromptEmbedsError as exc:
        print(f"refused before sending: {exc}")
    if scripted is not None:
        print(f"requests sent for it: {len(scripted.requests) - sent_before}")


if __name__ == "__main__":
    main()
