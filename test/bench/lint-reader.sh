#!/usr/bin/env bash
# Does pkg/source's fast YAML path (fastjson.go, fastlines.go) earn its place (issue 24, item 3:
# at least 2x on the user-visible command against the best kept library)? kubectl indexed lint,
# built twice from this checkout: as shipped, and with -tags yamllibs, which reads every document
# with sigs.k8s.io/yaml and yaml.v3 only. Both print the same report (checked first), then
# farm-bench times them side by side, pair by pair, on the bench-lint stream
# (test/bench/jobstream.sh):
#
#   test/bench/lint-reader.sh               (make bench-lint-reader)
#
# BENCH_DOCS sizes the streams (default "100 10000"), BENCH_RUNS the runs of each (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${BENCH_DOCS:-100 10000}
runs=${BENCH_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

CGO_ENABLED=0 go build -trimpath -o "$work/shipped" ./cmd/kubectl-indexed
CGO_ENABLED=0 go build -trimpath -tags yamllibs -o "$work/libs" ./cmd/kubectl-indexed
for n in $sizes; do
  bash test/bench/jobstream.sh "$n" >"$work/jobs-$n.yaml"
  "$work/shipped" lint "$work/jobs-$n.yaml" >"$work/a.txt" 2>&1 || true
  "$work/libs" lint "$work/jobs-$n.yaml" >"$work/b.txt" 2>&1 || true
  cmp -s "$work/a.txt" "$work/b.txt" || { echo "the two builds lint $n documents differently" >&2; diff "$work/a.txt" "$work/b.txt" | head >&2; exit 1; }
  echo "== $n Job documents ($(( $(stat -c %s "$work/jobs-$n.yaml") / 1024 )) KiB): A = fast path (shipped), B = YAML libraries only"
  farm-bench -n "$runs" --timeout 1200 --vs "$work/libs lint $work/jobs-$n.yaml" -- "$work/shipped" lint "$work/jobs-$n.yaml"
done
