"""Where the time of one forced call goes: a pyinstrument profile, SDK and raw openai.

Both clients make the same valid first-attempt call as `overhead.py` against the scripted
model, over local HTTP (the server in this process, so its work shows up too) or in process.
Writes `benchmarks/profiles/{sdk,raw}-{http,inprocess}.txt` (kept in git: the call tree
with library frames folded, then the functions with the most time of their own) and `.html`
(pyinstrument's flame view; not kept).

    pip install pyinstrument      # or: pip install -e '.[bench]'
    python benchmarks/profile_call.py [--calls 3000] [--in-process]
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

import openai
from overhead import _answer, _raw, _sdk, create_invoice

from toolcall_sdk import ToolCallClient
from toolcall_sdk.testing import ScriptedModel

PROFILES = Path(__file__).parent / "profiles"
_ROOT = Path(__file__).resolve().parent.parent
_FLAT_ROWS = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--in-process", action="store_true")
    options = parser.parse_args()
    try:
        from pyinstrument import Profiler
    except ImportError:
        parser.error("pyinstrument is not installed: pip install pyinstrument")
    model = ScriptedModel(_answer)
    where = "inprocess" if options.in_process else "http"
    PROFILES.mkdir(exist_ok=True)
    with contextlib.ExitStack() as stack:
        if options.in_process:
            base_url, http_client = model.base_url, model.http_client
        else:
            base_url, http_client = stack.enter_context(model.serve()), lambda: None
        contenders = {
            "raw": _raw(
                openai.OpenAI(
                    base_url=base_url, api_key="x", max_retries=0, http_client=http_client()
                )
            ),
            "sdk": _sdk(
                ToolCallClient(
                    base_url=base_url,
                    model="m",
                    tools=[create_invoice],
                    router="always",
                    http_client=http_client(),
                )
            ),
        }
        for name, once in contenders.items():
            for _ in range(50):
                once()
            profiler = Profiler()
            profiler.start()
            for _ in range(options.calls):
                once()
            profiler.stop()
            stem = PROFILES / f"{name}-{where}"
            tree = profiler.output_text(unicode=True, time="percent_of_total")
            flat = profiler.output_text(flat=True, time="percent_of_total").splitlines()
            text = (
                f"{options.calls} calls\n{tree}\nSelf time by function, top {_FLAT_ROWS}:\n"
                + "\n".join(flat[:_FLAT_ROWS])
                + "\n"
            )
            # Paths relative to the checkout: the profile says nothing about this machine.
            stem.with_suffix(".txt").write_text(text.replace(f"{_ROOT}/", ""))
            stem.with_suffix(".html").write_text(profiler.output_html())
            print(f"{stem}.txt, {stem}.html")


if __name__ == "__main__":
    main()
