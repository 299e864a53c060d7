#!/usr/bin/env bash
# down.sh stops the processes up.sh recorded in $RUN/pids, and only those:
# each PID is checked to still run a binary from the cache before it is
# signalled. It then removes the run directory (etcd data, certificates).
set -uo pipefail
. "$(dirname "$0")/env.sh"

[ -f "$RUN/pids" ] || { echo "controlplane: nothing to stop ($RUN/pids absent)"; exit 0; }
ours() { # ours PID NAME: the PID still runs $BIN/NAME.
  [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q "^$BIN/$2 "
}
# Stop in reverse start order so clients go before the apiserver and etcd.
tac "$RUN/pids" | while read -r name pid; do
  if ours "$pid" "$name"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do ours "$pid" "$name" || break; sleep 0.1; done
    ours "$pid" "$name" && kill -KILL "$pid" 2>/dev/null
  fi
done
# Keep the logs for a failed run; drop etcd data, certificates and pids.
find "$RUN" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
echo "controlplane: stopped (logs kept in $RUN/logs)"
