#!/usr/bin/env bash
# Does podstream.EachJSON, the hand-written decoder of status --pods-file, earn its place
# (issue 24, item 3: at least 2x on the user-visible command against the best kept library)?
# The same offline status command, built twice from this checkout: as shipped, and with
# -tags stdlibpods, which streams the pod list with encoding/json's Decoder (Token, then Decode
# of each item into a corev1.Pod: pkg/cmd/gather/stream_stdlib.go). Both print the same report
# (checked first), then farm-bench times them side by side, pair by pair, on files generated
# from a captured fixture (test/bench/statusgen):
#
#   test/bench/status-decoder.sh            (make bench-status-decoder)
#
# BENCH_PODS sizes the files (default "5000 100000"), BENCH_RUNS the runs of each (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${BENCH_PODS:-5000 100000}
runs=${BENCH_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

CGO_ENABLED=0 go build -trimpath -o "$work/shipped" ./cmd/kubectl-indexed
CGO_ENABLED=0 go build -trimpath -tags stdlibpods -o "$work/stdlib" ./cmd/kubectl-indexed
for n in $sizes; do
  go run ./test/bench/statusgen -pods "$n" -dir "$work/$n" >/dev/null
  args=(status -f "$work/$n/job.json" --pods-file "$work/$n/pods.json")
  "$work/shipped" "${args[@]}" >"$work/a.txt"
  "$work/stdlib" "${args[@]}" >"$work/b.txt"
  cmp -s "$work/a.txt" "$work/b.txt" || { echo "the two builds print different reports for $n pods" >&2; diff "$work/a.txt" "$work/b.txt" | head >&2; exit 1; }
  echo "== $n pods ($(( $(stat -c %s "$work/$n/pods.json") / 1048576 )) MB): A = podstream.EachJSON (shipped), B = encoding/json streaming"
  farm-bench -n "$runs" --timeout 1200 --vs "$work/stdlib ${args[*]}" -- "$work/shipped" "${args[@]}"
done
