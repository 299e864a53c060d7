#!/usr/bin/env bash
# smoke.sh: what the README promises for `gpuwise serve --demo`: it starts,
# becomes ready, exports metrics and answers /api/v1/report with exactly
# `gpuwise demo -o json`; SIGTERM stops it cleanly (exit 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/lib/proc.sh
GO=${GO:-go}
dir=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
$GO build -o "$dir/gpuwise" ./cmd/gpuwise

port=""
for _ in $(seq 1 50); do
  p=$((20000 + RANDOM % 20000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "smoke-serve: no free port" >&2; exit 1; }
url="http://127.0.0.1:$port"

detach "$dir/gpuwise" serve --demo --listen "127.0.0.1:$port" --log-format text >/dev/null 2>"$dir/serve.log"
pid=$!
for _ in $(seq 1 600); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { echo "smoke-serve: serve exited; log:" >&2; cat "$dir/serve.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS "$url/readyz"
curl -fsS "$url/metrics" >"$dir/metrics"
grep -q '^gpuwise_window_seconds{cluster="default"} 604800$' "$dir/metrics" ||
  { echo "smoke-serve: /metrics lacks the demo window" >&2; exit 1; }
grep -q '^gpuwise_workload_cost_usd_total{' "$dir/metrics" ||
  { echo "smoke-serve: /metrics lacks the history counters" >&2; exit 1; }
curl -fsS "$url/api/v1/report" >"$dir/api.json"
"$dir/gpuwise" demo -o json >"$dir/cli.json"
cmp "$dir/api.json" "$dir/cli.json" ||
  { echo "smoke-serve: /api/v1/report differs from gpuwise demo -o json" >&2; exit 1; }
# Bodies go to files before grep reads them: grep -q stops at its first
# match, and under pipefail the curl it cut off (exit 23) failed the check.
curl -fsS "$url/api/v1/history?kind=namespace&from=2026-11-01T00:00:00Z&to=2026-11-08T00:00:00Z&step=day" >"$dir/history.json"
grep -q '"cycles": 168' "$dir/history.json" || { echo "smoke-serve: the demo history is not the week's 168 hours" >&2; exit 1; }
curl -fsS "$url/" >"$dir/index.html"
grep -q 'src="app.js"' "$dir/index.html" && curl -fsS -o /dev/null "$url/app.js" ||
  { echo "smoke-serve: / does not serve the dashboard" >&2; exit 1; }
kill -TERM "$pid"
wait "$pid" || { echo "smoke-serve: serve did not exit 0 on SIGTERM; log:" >&2; cat "$dir/serve.log" >&2; exit 1; }
echo "smoke-serve: ok ($(wc -l <"$dir/metrics") metric lines, report identical to gpuwise demo -o json)"
