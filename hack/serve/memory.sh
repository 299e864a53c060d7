#!/usr/bin/env bash
# memory.sh: one `gpuwise serve --demo` process's memory, start-up to
# steady state (docs/performance.md, "serve --demo: start-up and
# steady-state memory"). Usage:
#   hack/serve/memory.sh [BINARY] [SCALE] [extra serve flags...]
# It builds ./cmd/gpuwise when BINARY is "" or absent, starts serve --demo
# under /usr/bin/time (peak RSS), polls /readyz each second, reads VmRSS
# from /proc at ready, then for STEADY_S seconds (default 60) scrapes
# /metrics every 15 s and asks /api/v1/report (the default, then by
# workload and by namespace with another idle share: answers computed on
# demand), reading VmRSS after each; then SIGTERM. One line per reading.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/lib/proc.sh
bin=${1:-}
scale=${2:-104}
shift 2 2>/dev/null || shift $#
steady=${STEADY_S:-60}
dir=$(mktemp -d)
trap 'kill "${spid:-}" "${pid:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
if [ -z "$bin" ]; then
  ${GO:-go} build -o "$dir/gpuwise" ./cmd/gpuwise
  bin=$dir/gpuwise
fi
port=""
for _ in $(seq 1 50); do
  p=$((20000 + RANDOM % 20000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "memory.sh: no free port" >&2; exit 1; }
url="http://127.0.0.1:$port"

rss() { awk '/^VmRSS:/ {printf "%.0f", $2/1024}' "/proc/$spid/status" 2>/dev/null || echo "?"; }
cpu() { awk '{printf "%.1f", ($14 + $15) / 100}' "/proc/$spid/stat" 2>/dev/null || echo "?"; }
get() { curl -fsS -o /dev/null -w '%{time_total}' "$url$1"; }

t0=$(date +%s)
detach /usr/bin/time -f '%e %M' -o "$dir/time" "$bin" serve --demo --scale "$scale" --listen "127.0.0.1:$port" --log-format text "$@" >/dev/null 2>"$dir/serve.log"
pid=$!
until curl -fsS "$url/readyz" >/dev/null 2>&1; do
  kill -0 "$pid" 2>/dev/null || { echo "memory.sh: serve exited; log:" >&2; cat "$dir/serve.log" >&2; exit 1; }
  sleep 1
done
spid=$(pgrep -P "$pid" -n || echo "$pid")
echo "scale $scale: ready after $(( $(date +%s) - t0 )) s, RSS $(rss) MB, CPU $(cpu) s (load average $(cut -d' ' -f1-3 /proc/loadavg); GOMEMLIMIT=${GOMEMLIMIT:-unset})"
for ((s = 0; s < steady; s += 15)); do
  m=$(get /metrics)
  case $s in
  0) a=$(get /api/v1/report) ;;
  15) a=$(get '/api/v1/report?by=workload') ;;
  30) a=$(get '/api/v1/report?by=namespace&idle-threshold=0.2') ;;
  *) a=$(get /api/v1/report) ;;
  esac
  echo "  +${s}s: /metrics ${m} s, report ${a} s, RSS $(rss) MB"
  sleep 15
done
echo "  +${steady}s: RSS $(rss) MB, CPU $(cpu) s"
kill -TERM "$spid" # serve; /usr/bin/time then writes the peak and exits
wait "$pid" || true
read -r wall peak <"$dir/time"
echo "  peak RSS $((peak / 1024)) MB, wall ${wall} s"
