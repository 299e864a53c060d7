#!/usr/bin/env bash
# bench.sh SCALE: the dashboard's first page against `gpuwise serve --demo
# --scale SCALE` (104: 9,984 GPUs, ~57,000 pods): the time until the
# service is ready, each first-page request's server time and transfer
# (curl, gzip, uncached then cached), and the page in headless Chromium
# (transfer, render time: measurements.json in $BROWSER_OUT). make
# bench-dashboard runs it; docs/performance.md has the numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/lib/proc.sh
scale=${1:-104}
out=${BROWSER_OUT:-$PWD/out/browser}
GO=${GO:-go}
dir=$(mktemp -d)
$GO build -o "$dir/gpuwise" ./cmd/gpuwise
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
detach "$dir/gpuwise" serve --demo --scale "$scale" --listen "127.0.0.1:$port" >/dev/null 2>"$dir/serve.log"
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
base=http://127.0.0.1:$port
until curl -sf -o /dev/null "$base/readyz"; do
  kill -0 $pid 2>/dev/null || { cat "$dir/serve.log"; exit 1; }
  sleep 2
done
echo "ready after $(( $(date +%s) - start )) s (scale $scale)"
win=$(curl -s "$base/api/v1/status" | python3 -c 'import json,sys; w=json.load(sys.stdin)["window"]; print(w["start"], w["end"])')
from=${win% *}; to=${win#* }
for round in uncached cached; do
  echo "$round: server s, total s, bytes (gzip), path"
  for u in / /app.js /style.css /api/v1/status /api/v1/report /api/v1/advise \
      "/api/v1/showback?by=namespace&idle-share=none" "/api/v1/history?kind=namespace&top=6" "/api/v1/history?kind=gpu_model" \
      "/api/v1/history?kind=namespace&from=$from&to=$to" "/api/v1/history?kind=gpu_model&from=$from&to=$to"; do
    curl -s --compressed -o /dev/null -w "  %{time_starttransfer} %{time_total} %{size_download} $u\n" "$base$u"
  done
done
GPUWISE_DASHBOARD_URL=$base GPUWISE_BROWSER_OUT=$out $GO test -tags browser -count=1 -run TestFirstPageWeightAndTiming -v ./internal/dashboard | grep -A12 'first page'
