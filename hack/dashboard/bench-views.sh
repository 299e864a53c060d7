#!/usr/bin/env bash
# bench-views.sh SCALE: every dashboard view against `gpuwise serve --demo
# --scale SCALE` (104: 9,984 GPUs). First in real headless Chromium
# (internal/dashboard TestEveryViewWeightAndTiming): each view opened in
# its own tab, in the order a person opens them (overview first), the
# first load after the cycle and then again; per view the slowest API
# request's server time (resource timing: responseStart - requestStart)
# and the bytes transferred (transferSize), in views.json in
# $BROWSER_OUT. Then each view's API requests with curl (time to first
# byte, gzipped bytes: the answers are cached by then) and each distinct
# answer's uncompressed size. It records the load average and the
# service's CPU and peak RSS at ready (the cycle's cost). Heavy at scale
# 104 (minutes, ~2.5 GB): run it under `flock /tmp/gpuwise-bigmem.lock`.
# make bench-dashboard-views runs it; docs/performance.md has the numbers.
# BENCH_VIEWS_SKIP, a regular expression, leaves out the curl requests it
# matches. The requests are the dashboard's
# (internal/dashboard/assets/app.js): keep them in step.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/lib/proc.sh
scale=${1:-104}
GO=${GO:-go}
dir=$(mktemp -d)
out=${BROWSER_OUT:-$PWD/out/browser}
mkdir -p "$out"
bin=${GPUWISE_BIN:-}
if [ -z "$bin" ]; then bin=$dir/gpuwise; $GO build -o "$bin" ./cmd/gpuwise; fi
# built before the service starts: compiling beside it would slow it
$GO test -c -tags browser -o "$dir/dashboard.test" ./internal/dashboard
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
echo "start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, scale $scale"
detach "$bin" serve --demo --scale "$scale" --listen "127.0.0.1:$port" >/dev/null 2>"$dir/serve.log"
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
base=http://127.0.0.1:$port
until curl -sf -o /dev/null "$base/readyz"; do
  kill -0 $pid 2>/dev/null || { cat "$dir/serve.log"; exit 1; }
  sleep 2
done
tck=$(getconf CLK_TCK)
read -r ut st < <(awk '{print $14, $15}' /proc/$pid/stat)
echo "ready after $(( $(date +%s) - start )) s; serve CPU at ready $(( (ut + st) / tck )) s (user+sys); $(grep -E 'VmHWM|VmRSS' /proc/$pid/status | tr -s ' \n' ' ')"
echo "load average at ready $(cut -d' ' -f1-3 /proc/loadavg)"
# the answers prepared before each state is published: how long the state waited
grep 'prepared the first answers' "$dir/serve.log" | sed 's/^/serve: /' || echo "serve: no 'prepared the first answers' line in its log"
echo "== in Chromium ($(chromium --version 2>/dev/null || echo chromium)): per view, slowest API server time, bytes transferred (API answers), requests"
GPUWISE_DASHBOARD_URL=$base GPUWISE_BROWSER_OUT=$out "$dir/dashboard.test" -test.run '^TestEveryViewWeightAndTiming$' -test.v -test.count=1 |
  grep -E '^\s+views_browser_test|^(---|ok|FAIL|PASS)' | sed 's/^ *views_browser_test.go:[0-9]*: //'
echo "views.json in $out; load average after the browser $(cut -d' ' -f1-3 /proc/loadavg); $(grep -E 'VmHWM|VmRSS' /proc/$pid/status | tr -s ' \n' ' ')"
status=$(curl -s "$base/api/v1/status")
label=$(printf '%s' "$status" | python3 -c 'import json,sys; l=json.load(sys.stdin).get("history_labels") or []; print(l[0] if l else "")')
ns=$(curl -s "$base/api/v1/report" | python3 -c 'import json,sys; print(next(r["key"] for r in json.load(sys.stdin)["rows"] if not r["key"].startswith("__")))')
hours=$(curl -s "$base/api/v1/report" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["window_hours"]) // 2)')
# the idle view asks recommend for its leaderboard's workloads only
board=$(curl -s "$base/api/v1/report?by=workload&top=50&limit=0" | python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(",".join(w["key"] for w in json.load(sys.stdin)["top_idle_workloads"]), safe=""))')
sb="/api/v1/showback?by=namespace&idle-share=cluster"
team=""
if [ -n "$label" ]; then
  sb="/api/v1/showback?by=label%3A$label&idle-share=cluster"
  team=$(curl -s "$base$sb" | python3 -c 'import json,sys; r=[x["key"] for x in json.load(sys.stdin)["rows"] if not x["key"].startswith("(")]; print(r[0] if r else "")')
fi
views=(
  "overview|/api/v1/status /api/v1/report /api/v1/showback?by=namespace&idle-share=none /api/v1/advise /api/v1/history?kind=namespace&top=6 /api/v1/history?kind=gpu_model /api/v1/compare?kind=namespace&period=${hours}h"
  "costs|/api/v1/report?by=namespace&offset=0&limit=50"
  "costs?by=workload|/api/v1/report?by=workload&offset=0&limit=50"
  "showback|$sb"
  "idle|/api/v1/report?by=workload&top=50&limit=0 /api/v1/advise /api/v1/recommend?workload=$board&limit=500 /api/v1/report?low-util=30%25%3A6h&offset=0&limit=50 /api/v1/history/low-util?offset=0&limit=50"
  "actions|/api/v1/advise"
  "progress|/api/v1/progress /api/v1/history?kind=gpu_model&step=day"
  "audit|/api/v1/audit"
  "notes|/api/v1/report /api/v1/advise /api/v1/audit"
  "drill?ns=$ns|/api/v1/report?by=workload&top=50&namespace=$ns&offset=0&limit=50 /api/v1/advise /api/v1/audit?namespace=$ns /api/v1/report /api/v1/history?kind=namespace&key=$ns"
)
[ -n "$team" ] && views+=("team/$team|$sb /api/v1/history?kind=label%3A$label&key=$team")
for round in "curl, after the browser" "curl, again"; do
  echo "== $round: view, then per request: time to first byte s, bytes (gzip), path"
  for v in "${views[@]}"; do
    name=${v%%|*}; total=0; worst=0
    for u in ${v#*|}; do
      if [ -n "${BENCH_VIEWS_SKIP:-}" ] && [[ $u =~ $BENCH_VIEWS_SKIP ]]; then echo "  $name  skipped (BENCH_VIEWS_SKIP)  $u"; continue; fi
      line=$(curl -s --compressed -o /dev/null -w "%{time_starttransfer} %{size_download} %{http_code}" "$base$u")
      read -r t b c <<<"$line"
      echo "  $name  $t  $b  $c  $u"
      total=$((total + b)); worst=$(python3 -c "print(max($worst, $t))")
    done
    echo "$name: slowest $worst s, $total bytes gzipped (API answers)"
  done
done
# what the answers cache holds for one cycle's views: each distinct
# request's uncompressed answer once (the cache keeps answers uncompressed)
raw=0; seen=" "
for v in "${views[@]}"; do
  for u in ${v#*|}; do
    [[ $seen == *" $u "* ]] && continue; seen+="$u "
    if [ -n "${BENCH_VIEWS_SKIP:-}" ] && [[ $u =~ $BENCH_VIEWS_SKIP ]]; then continue; fi
    b=$(curl -s -o /dev/null -w "%{size_download}" "$base$u"); raw=$((raw + b))
    echo "  uncompressed $b  $u"
  done
done
echo "every distinct request's answer uncompressed: $raw bytes"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(grep -E 'VmHWM|VmRSS' /proc/$pid/status | tr -s ' \n' ' ')"
