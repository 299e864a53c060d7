#!/usr/bin/env bash
# up.sh: start VictoriaMetrics single-node (built by hack/tools/build.sh)
# on 127.0.0.1 and load it, through its Prometheus-text import API, with
# the same simulated DCGM-exporter, cAdvisor and kube-state-metrics history
# the Prometheus tier backfills. Writes, under $VM_STATE (default
# /tmp/gpuwise-vm): url, truth.json.gz (the simulator's ground truth), pid.
# Knobs: VM_SCALE (default 2: 192 GPUs), VM_DAYS (3), VM_SEED (1).
# -retentionPeriod is 2y: the default (1 month) silently drops older
# samples, and the history starts 2026-11-01.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/tools/env.sh
. hack/lib/proc.sh
STATE=${VM_STATE:-/tmp/gpuwise-vm}
SCALE=${VM_SCALE:-2}
DAYS=${VM_DAYS:-3}
SEED=${VM_SEED:-1}
GO=${GO:-go}
VM=$TOOLS_BIN/victoria-metrics
[ -x "$VM" ] || { echo "up.sh: $VM missing; run hack/tools/build.sh victoria-metrics" >&2; exit 1; }
if [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
  echo "up.sh: VictoriaMetrics already running (pid $(cat "$STATE/pid")); run down.sh first" >&2
  exit 1
fi
rm -rf "$STATE"
mkdir -p "$STATE/data"

port=""
for _ in $(seq 1 50); do
  p=$((20000 + RANDOM % 20000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "up.sh: no free port found" >&2; exit 1; }
url="http://127.0.0.1:$port"
detach "$VM" -storageDataPath="$STATE/data" -httpListenAddr="127.0.0.1:$port" -retentionPeriod=2y \
  -search.disableCache -search.latencyOffset=0s -loggerLevel=WARN >"$STATE/vm.log" 2>&1
echo $! >"$STATE/pid"
for _ in $(seq 1 100); do
  curl -fsS "$url/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "$url/health" >/dev/null || { echo "up.sh: VictoriaMetrics not healthy; log:" >&2; tail -20 "$STATE/vm.log" >&2; exit 1; }

t0=$(date +%s)
$GO build -o "$STATE/gpuwise-lab" ./cmd/gpuwise-lab
# OpenMetrics timestamps are seconds; the Prometheus text import wants
# milliseconds. Comment lines (TYPE, EOF) are dropped.
"$STATE/gpuwise-lab" sim history --seed "$SEED" --scale "$SCALE" --days "$DAYS" --step 5m \
  -o "$STATE/history.om" --snapshot-out "$STATE/truth.json.gz"
grep -v '^#' "$STATE/history.om" | sed 's/ \([0-9][0-9]*\)$/ \1000/' |
  curl -fsS --data-binary @- "$url/api/v1/import/prometheus"
rm -f "$STATE/history.om"
curl -fsS "$url/internal/force_flush" >/dev/null
echo "$url" >"$STATE/url"
echo "up.sh: VictoriaMetrics $VM_VERSION at $url (pid $(cat "$STATE/pid")), history loaded in $(($(date +%s) - t0)) s"
