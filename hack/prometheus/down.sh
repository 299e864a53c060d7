#!/usr/bin/env bash
# down.sh: stop the Prometheus that up.sh started (by its recorded pid
# only) and remove its state.
set -uo pipefail
STATE=${PROM_STATE:-/tmp/gpuwise-prom}
if [ -f "$STATE/pid" ]; then
  pid=$(cat "$STATE/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
fi
rm -rf "$STATE"
