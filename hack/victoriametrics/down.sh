#!/usr/bin/env bash
# down.sh: stop the VictoriaMetrics up.sh started (by its recorded pid,
# checked to still run the cached binary: a reused pid is left alone),
# SIGKILL after 10 s, and remove its state.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hack/tools/env.sh
STATE=${VM_STATE:-/tmp/gpuwise-vm}
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q "^$TOOLS_BIN/victoria-metrics "; }
if [ -f "$STATE/pid" ]; then
  pid=$(cat "$STATE/pid")
  if ours "$pid"; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 100); do ours "$pid" || break; sleep 0.1; done
    ours "$pid" && kill -9 "$pid" 2>/dev/null
  fi
fi
rm -rf "$STATE"
