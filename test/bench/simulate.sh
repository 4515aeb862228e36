#!/usr/bin/env bash
# Benchmark: `kubectl indexed simulate FILE -o json` on generated Jobs of BENCH_INDEXES indexes
# (default "1000 100000"), all running at once with backoffLimitPerIndex 1, every 100th index
# failing its first attempt (exit 1, a scenario annotation) then succeeding: what
# BenchmarkSimulate in pkg/simulate simulates, as the command does it (reading the file and
# printing the report). Then the same 100,000 indexes with parallelism 1,000 (100 waves of pods).
# Reports wall-clock time, CPU time (user+sys) and peak RSS (GNU time) per run, and the same for
# `kubectl indexed version` (the binary's own floor).
#
#   PLUGIN=bin/kubectl-indexed bash test/bench/simulate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZES=${BENCH_INDEXES:-1000 100000}
RUNS=${BENCH_RUNS:-3}
PLUGIN=${PLUGIN:-bin/kubectl-indexed}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-simulate: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# job N PARALLELISM: the Job, with one exit-code annotation for attempt 0 of every 100th index.
job() {
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: big}
spec:
  completionMode: Indexed
  completions: $1
  parallelism: $2
  backoffLimitPerIndex: 1
  template:
    metadata:
      annotations:
EOF
  seq 0 100 $(($1 - 1)) | awk '{ printf "        scenario.indexed.kubectl.io/exit-code.%d.0: \"1\"\n", $1 }'
  cat <<'EOF'
    spec:
      restartPolicy: Never
      containers: [{name: worker, image: busybox:1.36}]
EOF
}

measure() {
  local label=$1; shift
  for _ in $(seq "$RUNS"); do
    "$TIME" -f "%e %U %S %M" -o "$work/time" "$PLUGIN" "$@" >"$work/out" 2>"$work/err"
    read -r secs user sys kb < <(tail -n 1 "$work/time")
    echo "$label: ${secs}s wall, $(echo "$user + $sys" | bc)s CPU, peak RSS $((kb / 1024)) MiB"
  done
}
measure "version (floor)" version
for n in $SIZES; do
  job "$n" "$n" >"$work/big.yaml"
  measure "$n indexes, all at once" simulate "$work/big.yaml" -o json
done
job 100000 1000 >"$work/waves.yaml"
measure "100000 indexes, parallelism 1000" simulate "$work/waves.yaml" -o json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["status"]; print("last run:", r["outcome"], "succeeded", s["succeeded"], "failed", s["failed"], "pods", r["podsCreated"])' "$work/out" || true
