#!/usr/bin/env bash
# ci.sh: what .ci/run runs, `make test` on a fresh machine in less wall
# time (issue 32 item 4): the same tiers, run side by side where they
# share nothing.
#   1. `make tools` (every external tool the integration tiers use, built
#      or installed once into $GPUWISE_CACHE or by apt) starts in the
#      background while lint, tidy-check, unit and smoke run: the tools
#      are module downloads, compiles and apt, the unit tier leaves a core
#      idle at times (a package's tests running alone, links).
#   2. Once both are done, the integration tiers run in two lanes: the
#      control plane's (integration-kube, then integration-serve: one
#      control plane on fixed ports) beside the others' (Prometheus,
#      VictoriaMetrics, rules, Grafana, browser: each its own state
#      directory and free ports).
# The checks' output streams; every other step's goes to $CI_LOGS/STEP.log
# (default out/ci) and is printed whole when the step ends, with its wall
# time. Any failure fails the run.
# CI_SERIAL=1 runs everything one after the other (make test's order).
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
logs=${CI_LOGS:-$PWD/out/ci}
mkdir -p "$logs"
t0=$(date +%s)

# step NAME TARGET...: make TARGET... into NAME.log; prints the log and
# the wall time at the end; returns make's status.
step() {
  local name=$1 s rc
  shift
  s=$(date +%s)
  $MAKE --no-print-directory "$@" >"$logs/$name.log" 2>&1
  rc=$?
  {
    echo "=== $name ($*): $(($(date +%s) - s)) s, exit $rc, at +$(($(date +%s) - t0)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    cat "$logs/$name.log"
  } | { flock 9; cat; } 9>"$logs/.print.lock"
  return $rc
}

if [ "${CI_SERIAL:-}" = 1 ]; then
  step test test
  exit $?
fi

integration=$($MAKE --no-print-directory -s print-integration)
lane_cp="" lane_other=""
for t in $integration; do
  case $t in
  integration-kube | integration-serve) lane_cp="$lane_cp $t" ;;
  *) lane_other="$lane_other $t" ;;
  esac
done

step tools tools &
tools=$!
s=$(date +%s) # the checks stream as they run; the tools' log comes when they end
$MAKE --no-print-directory lint tidy-check unit smoke 2>&1 | tee "$logs/checks.log"
checks=${PIPESTATUS[0]}
echo "=== checks (lint tidy-check unit smoke): $(($(date +%s) - s)) s, exit $checks, at +$(($(date +%s) - t0)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
wait $tools
tools_rc=$?
[ $checks -eq 0 ] || { echo "ci: lint, tidy-check, unit or smoke failed"; exit $checks; }
[ $tools_rc -eq 0 ] || { echo "ci: make tools failed"; exit $tools_rc; }

lane() { # lane NAME TIER...: the tiers one after the other, stopping at a failure.
  local name=$1 t
  shift
  for t in "$@"; do step "$t" "$t" || return 1; done
}
# shellcheck disable=SC2086 # word splitting wanted
lane cp $lane_cp &
cp=$!
# shellcheck disable=SC2086
lane other $lane_other
other=$?
wait $cp
cp_rc=$?
echo "ci: $(($(date +%s) - t0)) s in all (load average $(cut -d' ' -f1-3 /proc/loadavg))"
[ $cp_rc -eq 0 ] && [ $other -eq 0 ] || { echo "ci: an integration tier failed"; exit 1; }
