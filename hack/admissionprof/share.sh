#!/usr/bin/env bash
# share.sh OUT: per policies-on profile of prof.sh, the validating and
# mutating admission policy plugins' share of the API server's CPU, times
# its CPU per create: each plugin's CPU per create (ms).
B=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/controlplane/bin/kube-apiserver
for f in "$1"/*-on.pprof; do
  v=$(basename "$f" -on.pprof)
  cpu=$(sed -n 's/.*cpu\/create \([0-9.]*\) ms/\1/p' "$1/$v-on.txt")
  go tool pprof -top -cum -nodecount=2000 "$B" "$f" 2>/dev/null | awk -v v="$v" -v cpu="$cpu" '
    /Total samples/ { for (i = 1; i <= NF; i++) if ($i == "=") { t = $(i + 1); sub("s", "", t) } }
    /validating.\(\*dispatcher\).Dispatch$/ { x = $4; sub("s", "", x); vap = x }
    /policy\/generic.\(\*policyDispatcher.*Dispatch$/ { x = $4; sub("s", "", x); mapd = x }
    END { printf "%s: API server CPU/create %.3f ms; VAP plugin %.3f ms (%.1f%%), MAP plugin %.3f ms\n", v, cpu, cpu * vap / t, 100 * vap / t, cpu * mapd / t }'
done
