#!/usr/bin/env bash
# up.sh: backfill simulated DCGM-exporter, cAdvisor and kube-state-metrics
# history into a fresh TSDB with promtool and start a real Prometheus on
# 127.0.0.1 with it. Writes, under $PROM_STATE (default /tmp/gpuwise-prom):
#   url         the Prometheus base URL
#   truth.json.gz  the simulator's snapshot: ground truth for the history
#   pid         the Prometheus process (down.sh stops it)
# Knobs: PROM_SCALE (default 4: 384 GPUs), PROM_DAYS (14), PROM_SEED (1),
# PROM_STEP (5m), PROM_PORT (default: a free one of 20000-39999). The window
# starts 2026-11-01T00:00:00Z.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/lib/proc.sh
STATE=${PROM_STATE:-/tmp/gpuwise-prom}
SCALE=${PROM_SCALE:-4}
DAYS=${PROM_DAYS:-14}
SEED=${PROM_SEED:-1}
STEP=${PROM_STEP:-5m}
GO=${GO:-go}

if [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
  echo "up.sh: Prometheus already running (pid $(cat "$STATE/pid")); run down.sh first" >&2
  exit 1
fi
rm -rf "$STATE"
mkdir -p "$STATE/tsdb"

t0=$(date +%s)
$GO build -o "$STATE/gpuwise-lab" ./cmd/gpuwise-lab
"$STATE/gpuwise-lab" sim history --seed "$SEED" --scale "$SCALE" --days "$DAYS" --step "$STEP" \
  -o "$STATE/history.om" --snapshot-out "$STATE/truth.json.gz"
t1=$(date +%s)
# One block per 31 days: promtool re-reads its input once per block.
promtool tsdb create-blocks-from openmetrics --max-block-duration=744h "$STATE/history.om" "$STATE/tsdb" >"$STATE/promtool.log"
rm -f "$STATE/history.om"
t2=$(date +%s)
echo "up.sh: simulated history in $((t1 - t0))s, promtool backfill in $((t2 - t1))s ($(du -sh "$STATE/tsdb" | cut -f1) TSDB)"

# Overlapping (backfilled) blocks are always allowed since Prometheus 2.39;
# older versions need the flag.
extra=()
version=$(prometheus --version 2>&1 | sed -n 's/^prometheus, version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r major minor <<<"$version"
if [ "${major:-3}" -lt 2 ] || { [ "${major:-3}" -eq 2 ] && [ "${minor:-99}" -lt 39 ]; }; then
  extra+=(--storage.tsdb.allow-overlapping-blocks)
fi

port=${PROM_PORT:-}
for _ in $(seq 1 50); do
  [ -z "$port" ] || break
  p=$((20000 + RANDOM % 20000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "up.sh: no free port found" >&2; exit 1; }

printf 'global:\n  scrape_interval: 5m\n' >"$STATE/prometheus.yml"
detach prometheus --config.file="$STATE/prometheus.yml" --storage.tsdb.path="$STATE/tsdb" \
  --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$port" \
  "${extra[@]}" >"$STATE/prometheus.log" 2>&1
echo $! >"$STATE/pid"
url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  if curl -fsS "$url/-/ready" >/dev/null 2>&1; then
    echo "$url" >"$STATE/url"
    echo "up.sh: Prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) ready at $url (pid $(cat "$STATE/pid")) in $(($(date +%s) - t2))s"
    exit 0
  fi
  if ! kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
    echo "up.sh: Prometheus exited; log:" >&2; tail -20 "$STATE/prometheus.log" >&2; exit 1
  fi
  sleep 0.5
done
echo "up.sh: Prometheus not ready after 60s; log:" >&2
tail -20 "$STATE/prometheus.log" >&2
exit 1
