"""docs/scaling.md's launch commands, read by the installed vLLM's own `serve` parser.

The unit tier checks that each command runs through the launcher; this checks that every
flag the launcher then writes is one this vLLM knows, spelled its way, in a combination its
argument validation accepts. Nothing is started: the commands are parsed, not run.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from tests.unit.launcher.test_scaling_doc import LAUNCHES, _dry_run

PARSE = r"""
import json, sys
try:
    from vllm.utils.argparse_utils import FlexibleArgumentParser
except ImportError:  # vLLM before 0.11
    from vllm.utils import FlexibleArgumentParser
try:
    from vllm.entrypoints.launchers.cli_args import make_arg_parser, validate_parsed_serve_args
except ImportError:  # vLLM before the launchers package
    from vllm.entrypoints.openai.cli_args import make_arg_parser, validate_parsed_serve_args

failures = []
for argv in json.load(open(sys.argv[1])):
    try:
        args = make_arg_parser(FlexibleArgumentParser()).parse_args(argv[2:])
        validate_parsed_serve_args(args)
    except BaseException as exc:  # argparse exits; validation raises
        failures.append({"argv": argv, "error": repr(exc)})
json.dump(failures, open(sys.argv[2], "w"))
"""


def test_vllm_parses_every_layout(vllm_python: str, tmp_path: Path) -> None:
    commands = []
    for command in LAUNCHES:
        result = _dry_run(command.words, command.env)
        assert result.exit_code == 0, result.output
        argv = shlex.split(result.stdout)
        commands.append(argv)
        # vLLM checks that a chat template path exists; the example templates it names live
        # in a vLLM checkout, so empty stand-ins take their place here.
        for i, arg in enumerate(argv[:-1]):
            if arg == "--chat-template" and argv[i + 1].startswith("examples/"):
                stand_in = tmp_path / argv[i + 1]
                stand_in.parent.mkdir(parents=True, exist_ok=True)
                stand_in.touch()
    given, answer = tmp_path / "commands.json", tmp_path / "failures.json"
    given.write_text(json.dumps(commands), encoding="utf-8")

    done = subprocess.run(
        [vllm_python, "-c", PARSE, str(given), str(answer)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert done.returncode == 0, done.stderr[-4000:]
    assert json.loads(answer.read_text(encoding="utf-8")) == []
    assert len(commands) >= 12
