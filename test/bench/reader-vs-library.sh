#!/usr/bin/env bash
# Does a hand-written reader earn its place (issue 24, item 3: at least 2x on the user-visible
# command against the best kept library)? The command, built twice from this checkout: as
# shipped, and with a build tag that swaps the reader for the library. Both must print the same
# output (checked first), then they run in turn (A B A B ..., after one warm-up each) under GNU
# time, and the table gives each one's median wall time, CPU time (user + sys) and peak RSS, and
# the median of the ratios A/B taken pair by pair (a pair shares the machine's load):
#
#   test/bench/reader-vs-library.sh status   (make bench-status-decoder)
#       status --pods-file with podstream.EachJSON, against -tags stdlibpods: encoding/json's
#       streaming Decoder (Token, then Decode of each item into a corev1.Pod:
#       pkg/cmd/gather/stream_stdlib.go), on pod lists from test/bench/statusgen.
#       BENCH_PODS sizes them (default "5000 100000").
#
# BENCH_RUNS is the runs of each (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
kind=${1:?usage: reader-vs-library.sh status}
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
*) echo "reader-vs-library.sh: unknown reader $kind (status)" >&2; exit 2 ;;
esac

TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "reader-vs-library.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 2; }

# pair A B: runs "$A ${args[@]}" and "$B ${args[@]}" in turn, prints the table.
pair() {
  local i bin
  for bin in "$1" "$2"; do "$bin" "${args[@]}" >/dev/null 2>&1 || true; done # warm-up
  : >"$work/times"
  for i in $(seq 1 "$runs"); do
    for bin in "$1" "$2"; do
      "$TIME" -f "$i $bin %e %U %S %M" -a -o "$work/times" "$bin" "${args[@]}" >/dev/null 2>&1 || true
    done
  done
  awk -v a="$1" -v b="$2" '
    function median(v, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
      return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
    }
    $1 ~ /^[0-9]+$/ {
      k = ($2 == a) ? "A" : "B"
      wall[k, $1] = $3; cpu[k, $1] = $4 + $5; rss[k, $1] = $6 / 1024; n[k] = ($1 > n[k]) ? $1 : n[k]
    }
    END {
      printf "%-3s %10s %10s %12s\n", "", "wall s", "cpu s", "peak MiB"
      for (s = 0; s < 2; s++) {
        k = s ? "B" : "A"
        for (i = 1; i <= n[k]; i++) { w[i] = wall[k, i]; c[i] = cpu[k, i]; r[i] = rss[k, i] }
        printf "%-3s %10.3f %10.3f %12.1f\n", k, median(w, n[k]), median(c, n[k]), median(r, n[k])
      }
      for (i = 1; i <= n["A"]; i++) { w[i] = wall["A", i] / wall["B", i]; c[i] = cpu["A", i] / cpu["B", i] }
      printf "A/B %10.3f %10.3f   (medians of the ratios, pair by pair; %d pairs)\n", median(w, n["A"]), median(c, n["A"]), n["A"]
    }' "$work/times"
}

CGO_ENABLED=0 go build -trimpath -o "$work/shipped" ./cmd/kubectl-indexed
CGO_ENABLED=0 go build -trimpath -tags "$tag" -o "$work/library" ./cmd/kubectl-indexed
for n in $sizes; do
  input "$n"
  # lint exits 1 on findings: the outputs are compared, not the exit codes.
  "$work/shipped" "${args[@]}" >"$work/a.txt" 2>&1 || true
  "$work/library" "${args[@]}" >"$work/b.txt" 2>&1 || true
  cmp -s "$work/a.txt" "$work/b.txt" || { echo "the two builds differ on $what" >&2; diff "$work/a.txt" "$work/b.txt" | head >&2; exit 1; }
  echo "== $what: A = $a, B = $b"
  pair "$work/shipped" "$work/library"
done
