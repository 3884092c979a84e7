#!/usr/bin/env bash
# Install the project with its dev extra into .venv and run every check:
# ruff, ruff format, mypy --strict, and the whole pytest suite.
# Usage: ./scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${TOOLCALL_VENV:-.venv}

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[dev]"

echo "== ruff"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
echo "== mypy --strict"
"$VENV/bin/mypy"
echo "== pytest"
"$VENV/bin/pytest" -q "$@"
