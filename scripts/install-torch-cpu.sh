#!/usr/bin/env bash
# Install the CPU build of torch into a Python, for the `router` extra (transformers,
# sentence-transformers). A CUDA wheel is gigabytes and unused by the tests; installed
# first, the CPU build is what the resolver keeps when the extra is installed after it.
#
# Usage: scripts/install-torch-cpu.sh PYTHON
#
# In order: $TOOLCALL_TORCH_SPEC when set (any pip requirement, e.g. "torch" on a GPU
# machine); torch==2.13.0+cpu from the indexes pip already knows (a machine with a local
# wheel folder); the same from the PyTorch CPU index; plain torch==2.13.0 from PyPI (on
# Linux x86_64 a CUDA build: large, but it runs on the CPU). A torch that already satisfies
# the requirement is kept (seconds).
set -euo pipefail

PY=${1:?usage: scripts/install-torch-cpu.sh PYTHON}
VERSION=${TOOLCALL_TORCH_VERSION:-2.13.0}
CPU_INDEX=https://download.pytorch.org/whl/cpu
pip_() { "$PY" -m pip --disable-pip-version-check --quiet "$@"; }

if [ -n "${TOOLCALL_TORCH_SPEC:-}" ]; then
    pip_ install "$TOOLCALL_TORCH_SPEC"
    exit 0
fi
if pip_ install "torch==$VERSION+cpu" 2>/dev/null; then
    exit 0
fi
echo "install-torch-cpu: torch $VERSION+cpu is not on the default index; trying $CPU_INDEX" >&2
if pip_ install --extra-index-url "$CPU_INDEX" "torch==$VERSION+cpu"; then
    exit 0
fi
echo "install-torch-cpu: the PyTorch CPU index is out of reach; torch==$VERSION from PyPI" >&2
pip_ install "torch==$VERSION"
