#!/usr/bin/env bash
# Benchmark the offline report at scale: `kubectl indexed status -f job.json --pods-file
# pods.json` on generated files of BENCH_PODS pods (default "5000 100000"), one pod per index,
# cloned from the captured fixture BENCH_FIXTURE (default test/fixtures/completing) by
# test/bench/statusgen. Each size is run BENCH_RUNS times (default 3) for each output of
# BENCH_OUTPUTS (default "text json": the text view and -o json), interleaved; the table shows
# wall time, user CPU and peak RSS (GNU time -v) of each run. BENCH_ATTEMPTS (default 1) gives
# each index that many pods (statusgen -attempts: the older ones failed and settled), so that
# BENCH_PODS are then the indexes and PODS in the table the pods. BENCH_COMPLETIONS (default:
# each size of BENCH_PODS) fixes the Job's completions, the pods then covering indexes 0 to
# BENCH_PODS-1 only (statusgen -completions), so that the pods grow with the completions fixed.
# BENCH_RECEIPTS=true gives every terminated container a receipt summary in its termination
# message (statusgen -receipts), as the workers of a Job made by create leave one.
#
# Usage: bash test/bench/status-offline.sh     (or make bench-status-offline)
set -euo pipefail

cd "$(dirname "$0")/../.."
sizes=${BENCH_PODS:-5000 100000}
runs=${BENCH_RUNS:-3}
outputs=${BENCH_OUTPUTS:-text json}
fixture=${BENCH_FIXTURE:-test/fixtures/completing}
attempts=${BENCH_ATTEMPTS:-1}
completions=${BENCH_COMPLETIONS:-0}
receipts=${BENCH_RECEIPTS:-false}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/kubectl-indexed" ./cmd/kubectl-indexed
printf '%-8s %-11s %-6s %-4s %10s %10s %12s %10s\n' PODS COMPLETIONS OUTPUT RUN WALL USER_S MAX_RSS_MB FILE_MB
for n in $sizes; do
  go run ./test/bench/statusgen -fixture "$fixture" -pods "$n" -attempts "$attempts" -completions "$completions" -receipts="$receipts" -dir "$work/$n"
  size=$(( $(stat -c %s "$work/$n/pods.json") / 1048576 ))
  for r in $(seq 1 "$runs"); do
    for out in $outputs; do
      flags=()
      [ "$out" = text ] || flags=(-o "$out")
      /usr/bin/time -v "$work/kubectl-indexed" status -f "$work/$n/job.json" --pods-file "$work/$n/pods.json" "${flags[@]}" \
        >"$work/out" 2>"$work/time" || { cat "$work/time" >&2; exit 1; }
      wall=$(awk -F': ' '/Elapsed/ {print $2}' "$work/time")
      user=$(awk -F': ' '/User time/ {print $2}' "$work/time")
      rss=$(awk -F': ' '/Maximum resident/ {printf "%d", $2/1024}' "$work/time")
      printf '%-8s %-11s %-6s %-4s %10s %10s %12s %10s\n' "$((n * attempts))" "$((completions > 0 ? completions : n))" "$out" "$r" "$wall" "$user" "$rss" "$size"
    done
  done
done
