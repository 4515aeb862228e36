#!/usr/bin/env bash
# make check, stage by stage: runs the stages named below through make, in two lanes at once,
# prints each stage's wall and CPU time as it ends and a table of them at the end, and fails when any
# stage failed (after the others finished). Called by `make check` (the README's test command)
# with the stages' targets in the environment:
#
#   CHECK_EXTRA    targets for lane 1 after vet, lint, test and fuzz (docs, lint-bigfile, ...)
#   CHECK_RELEASE  release checks, run in lane 2 while e2e runs (goreleaser, krew)
#   CHECK_LANES    2 (default): the lanes run at once; 1: one after the other
#
# Why two lanes on 2 cores: e2e spends most of its time waiting on the control plane (about
# 30% CPU), and the release build and the tools' first builds from source are CPU-bound; running
# them at once fills the cores that one lane leaves idle. Lane 1 (vet, lint, unit tests with
# -race, fuzz) needs no control plane.
#
# Priorities: lane 2's cluster-bins, then e2e, is the longest chain (e2e alone takes 20 minutes
# and cannot start before the control plane is built), so lane 1 runs at nice 10 and the release
# checks at nice 5: on a cold machine they take the CPU that the chain leaves, instead of slowing
# it, and e2e's control plane answers on time. Times: CONTRIBUTING.md.
set -uo pipefail
cd "$(dirname "$0")/.."

MAKE=${MAKE:-make}
LANES=${CHECK_LANES:-2}
times=$(mktemp)
logs=$(mktemp -d)
trap 'rm -rf "$times" "$logs"' EXIT

# stage NAME TARGET...: make TARGET..., timed; the time goes to stderr and to the table.
stage() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	echo "=== stage $name: make $*" >&2
	# The CPU time (user + system) of the stage and every process it waited for: on 2 cores the
	# stages compete, so a stage's wall time depends on the others and its CPU time does not.
	local TIMEFORMAT='%U %S'
	{ time {
		$MAKE --no-print-directory "$@" 2>&1 | tee "$logs/$name.log"
		echo "${PIPESTATUS[0]}" >"$logs/$name.rc"
	}; } 2>"$logs/$name.cpu"
	rc=$(cat "$logs/$name.rc")
	local took=$(( $(date +%s) - start ))
	local cpu
	cpu=$(awk '{ printf "%d", $1 + $2 + 0.5 }' "$logs/$name.cpu")
	printf '%-18s %5ds %6ds  %s\n' "$name" "$took" "$cpu" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (rc $rc)")" >>"$times"
	echo "=== stage $name: ${took}s, ${cpu}s CPU, rc $rc" >&2
	return "$rc"
}

# lane NAME: its output prefixed with the lane's name, so that two lanes can be told apart.
prefix() { sed -u "s/^/[$1] /"; }

lane1() {
	local rc=0
	stage vet vet || rc=1
	stage lint lint || rc=1
	stage test test || rc=1
	stage fuzz fuzz || rc=1
	for t in ${CHECK_EXTRA:-}; do stage "$t" "$t" || rc=1; done
	return "$rc"
}

release() {
	local rc=0
	for t in ${CHECK_RELEASE:-}; do stage "$t" "$t" || rc=1; done
	return "$rc"
}

lane2() {
	local rc=0 e2e_pid
	stage cluster-bins cluster-bins || return 1
	if [ "$LANES" -ge 2 ]; then
		# The release build while e2e waits on the control plane.
		stage e2e e2e 2>&1 | prefix e2e &
		e2e_pid=$!
		(renice -n $(( $(nice) + 5 )) -p "$BASHPID" >/dev/null; release) 2>&1 | prefix release || rc=1
		wait "$e2e_pid" || rc=1
	else
		stage e2e e2e || rc=1
		release || rc=1
	fi
	return "$rc"
}

start=$(date +%s)
rc=0
if [ "$LANES" -ge 2 ]; then
	(renice -n $(( $(nice) + 10 )) -p "$BASHPID" >/dev/null; lane1) 2>&1 | prefix 1 &
	pid1=$!
	lane2 2>&1 | prefix 2 &
	pid2=$!
	wait "$pid1" || rc=1
	wait "$pid2" || rc=1
else
	lane1 || rc=1
	lane2 || rc=1
fi
echo
echo "make check: stages (wall time, CPU time; lanes ran at once: $([ "$LANES" -ge 2 ] && echo yes || echo no))"
sort -k2 -n -r "$times" | sed 's/^/  /'
echo "make check: $(awk '{ cpu += $3 } END { printf "%d", cpu }' "$times")s of CPU time in all stages"
# What failed, in a few lines at the end where a CI summary shows it: Go's FAIL lines and the
# scripts' own FAIL messages of each failed stage (its whole output is above).
for name in $(awk '$4 == "FAILED" { print $1 }' "$times"); do
	echo "make check: $name failed:"
	grep -E -e '--- FAIL|^FAIL|FAIL:|panic:|Error [0-9]+$' "$logs/$name.log" | grep -v '^ok ' | tail -n 12 | sed 's/^/  /'
done
echo "make check: $(( $(date +%s) - start ))s in all, $([ "$rc" = 0 ] && echo ok || echo FAILED)"
exit "$rc"
