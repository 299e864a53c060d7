#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module for FUZZTIME each and prints
# how many executions each made. It fails when a target finds a crasher
# (Go writes it to the package's testdata/fuzz/<Target>/, where it stays as
# a regression input) or makes fewer than FUZZ_MIN_EXECS executions, which
# means the run spent its budget elsewhere than fuzzing.
#
# -fuzzminimizetime bounds how long a worker minimizes each new interesting
# input. Go's default (60 s each) let large seeds eat the whole budget:
# FuzzReadV2 made 11 executions in 60 s (issue 31). A crasher minimized
# this little is still written and still reproduces.
#
#   FUZZTIME=30s FUZZ_MIN_EXECS=10000 FUZZ_MINIMIZE=100x FUZZ='Read' hack/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
FUZZ_MIN_EXECS=${FUZZ_MIN_EXECS:-10000}
FUZZ_MINIMIZE=${FUZZ_MINIMIZE:-100x}
FUZZ=${FUZZ:-.} # a regexp: only targets whose name matches

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
fail=0
summary=()
# Packages with a fuzz target, then their targets (go test -list).
for pkg in $(grep -rl --include='*_test.go' '^func Fuzz' internal cmd 2>/dev/null | xargs -n1 dirname | sort -u); do
	for target in $($GO test -list '^Fuzz' "./$pkg" | grep '^Fuzz' | grep -E -- "$FUZZ" || true); do
		out="$log/$target.log"
		rc=0
		$GO test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$FUZZ_MINIMIZE" "./$pkg" >"$out" 2>&1 || rc=$?
		# The last progress line carries the total ("execs: 123456 (4115/sec)").
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | awk '{print $2}')
		execs=${execs:-0}
		status=ok
		if [ "$rc" -ne 0 ]; then
			status="FAILED (rc $rc)"
			fail=1
			echo "--- $pkg $target:" >&2
			tail -30 "$out" >&2
		elif [ "$execs" -lt "$FUZZ_MIN_EXECS" ]; then
			status="TOO FEW EXECUTIONS (want >= $FUZZ_MIN_EXECS)"
			fail=1
			tail -8 "$out" >&2
		fi
		summary+=("$(printf '%-24s %-28s %12s  %s' "$target" "$pkg" "$execs" "$status")")
		echo "${summary[-1]}"
	done
done
echo
echo "fuzz: $FUZZTIME per target, -fuzzminimizetime=$FUZZ_MINIMIZE, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %-28s %12s  %s\n' TARGET PACKAGE EXECUTIONS STATUS
printf '%s\n' "${summary[@]}"
exit $fail
