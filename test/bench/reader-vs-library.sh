#!/usr/bin/env bash
# Does a hand-written reader earn its place (issue 24, item 3: at least 2x on the user-visible
# command against the best kept library)? The command, built twice from this checkout: as
# shipped, and with a build tag that swaps the reader for the library. Both must print the same
# output (checked first), then farm-bench times them side by side, pair by pair:
#
#   test/bench/reader-vs-library.sh status   (make bench-status-decoder)
#       status --pods-file with podstream.EachJSON, against -tags stdlibpods: encoding/json's
#       streaming Decoder (Token, then Decode of each item into a corev1.Pod:
#       pkg/cmd/gather/stream_stdlib.go), on pod lists from test/bench/statusgen.
#       BENCH_PODS sizes them (default "5000 100000").
#   test/bench/reader-vs-library.sh lint     (make bench-lint-reader)
#       lint with pkg/source's fast YAML path (fastjson.go, fastlines.go), against -tags
#       yamllibs: sigs.k8s.io/yaml and yaml.v3 only, on the bench-lint stream
#       (test/bench/jobstream.sh). BENCH_DOCS sizes it (default "100 10000").
#
# BENCH_RUNS is the runs of each (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
kind=${1:?usage: reader-vs-library.sh status|lint}
runs=${BENCH_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# input N: writes the input of size N and sets args (the command's arguments), what, a and b.
case $kind in
status)
  tag=stdlibpods sizes=${BENCH_PODS:-5000 100000}
  a="podstream.EachJSON (shipped)" b="encoding/json streaming"
  input() {
    go run ./test/bench/statusgen -pods "$1" -dir "$work/$1" >/dev/null
    args=(status -f "$work/$1/job.json" --pods-file "$work/$1/pods.json")
    what="$1 pods ($(($(stat -c %s "$work/$1/pods.json") / 1048576)) MB)"
  }
  ;;
lint)
  tag=yamllibs sizes=${BENCH_DOCS:-100 10000}
  a="fast path (shipped)" b="YAML libraries only"
  input() {
    bash test/bench/jobstream.sh "$1" >"$work/jobs-$1.yaml"
    args=(lint "$work/jobs-$1.yaml")
    what="$1 Job documents ($(($(stat -c %s "$work/jobs-$1.yaml") / 1024)) KiB)"
  }
  ;;
*) echo "reader-vs-library.sh: unknown reader $kind (status or lint)" >&2; exit 2 ;;
esac

CGO_ENABLED=0 go build -trimpath -o "$work/shipped" ./cmd/kubectl-indexed
CGO_ENABLED=0 go build -trimpath -tags "$tag" -o "$work/library" ./cmd/kubectl-indexed
for n in $sizes; do
  input "$n"
  # lint exits 1 on findings: the outputs are compared, not the exit codes.
  "$work/shipped" "${args[@]}" >"$work/a.txt" 2>&1 || true
  "$work/library" "${args[@]}" >"$work/b.txt" 2>&1 || true
  cmp -s "$work/a.txt" "$work/b.txt" || { echo "the two builds differ on $what" >&2; diff "$work/a.txt" "$work/b.txt" | head >&2; exit 1; }
  echo "== $what: A = $a, B = $b"
  farm-bench -n "$runs" --timeout 1200 --vs "$work/library ${args[*]}" -- "$work/shipped" "${args[@]}"
done
