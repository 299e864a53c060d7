#!/usr/bin/env bash
# down.sh: stop the VictoriaMetrics up.sh started (by its recorded pid).
STATE=${VM_STATE:-/tmp/gpuwise-vm}
if [ -f "$STATE/pid" ]; then
  pid=$(cat "$STATE/pid")
  kill "$pid" 2>/dev/null && for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$STATE/pid"
fi
