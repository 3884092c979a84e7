"""The ladder on a demo model, servers included: start the two servers, run ladder.py, stop.

    python benchmarks/ladder_demo.py --demo 0.5b --per-source 50 --out runs/ladder-0.5b

Builds the demo model first if needed (`python -m toolcall_sdk_demo build`, in vLLM's venv),
then serves it twice through the launcher, as `launch --demo` does: once with the SDK's
parser plugin (every rung but `auto`) and once with vLLM's own `hermes` parser (the `auto`
rung, the seed's "wrong parser" row). Everything after `--` (or any option ladder.py takes)
is passed to ladder.py. Progress is plain lines; the servers' logs are under the user's log
folder.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __name__ == "__main__":  # `python benchmarks/ladder_demo.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import ladder

from toolcall_sdk.launcher import DEMO_SERVE_ENV, demo_options, serve
from toolcall_sdk.launcher._demo import demo_python, resolve_demo_model


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--demo", default="0.5b", help="which demo model (0.5b or 1.5b)")
    parser.add_argument("--vllm-python", help="the Python that runs vLLM (default: detected)")
    args, rest = parser.parse_known_args(argv)
    # SIGTERM (a timeout, a kill) ends the run through the servers' exits, not around them:
    # without this the two vLLM servers would outlive the script.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    model = resolve_demo_model(args.demo)
    python = args.vllm_python or demo_python(None)
    started = time.monotonic()
    print(f"ladder: building or finding {model.title} with {python}", flush=True)
    done = subprocess.run(
        [python, "-m", "toolcall_sdk_demo", "build", "--model", model.key],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(done.stdout, file=sys.stderr)
        return 1
    model_dir = Path(done.stdout.strip().splitlines()[-1])
    command = [python, "-m", "vllm.entrypoints.openai.api_server"]
    options = demo_options(model_dir, model=model, command=command)
    with contextlib.ExitStack() as stack:
        print("ladder: starting the plugin-parser server and the hermes server", flush=True)
        right = stack.enter_context(
            serve(model_dir, env=_own_core(0), startup_timeout=1200, **options)
        )
        wrong = stack.enter_context(
            serve(
                model_dir,
                env=_own_core(1),
                startup_timeout=1200,
                **{**options, "tool_call_parser": "hermes"},  # type: ignore[typeddict-item]
            )
        )
        print(
            f"ladder: servers ready in {time.monotonic() - started:.0f} s "
            f"({right.base_url}, hermes {wrong.base_url})",
            flush=True,
        )
        code = ladder.main(
            [
                "--base-url",
                right.base_url,
                "--wrong-parser-base-url",
                wrong.base_url,
                "--model",
                model.served_model_name,
                *rest,
            ]
        )
    print(f"ladder: done in {time.monotonic() - started:.0f} s", flush=True)
    return code


def _own_core(index: int) -> dict[str, str]:
    """The demo's server environment, its inference threads bound to core `index`.

    vLLM's CPU build binds every server's threads to the same first core when left to
    choose, so the two servers of this script took turns on one core while the other idled.
    A binding the caller set is kept.
    """
    env = dict(DEMO_SERVE_ENV)
    cores = os.cpu_count() or 1
    if "VLLM_CPU_OMP_THREADS_BIND" not in os.environ and cores >= 2:
        env["VLLM_CPU_OMP_THREADS_BIND"] = str(index % cores)
    return env


if __name__ == "__main__":
    sys.exit(main())
