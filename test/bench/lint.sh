#!/usr/bin/env bash
# Benchmark: `kubectl indexed lint` on a stream of BENCH_DOCS (default 10,000) Job documents,
# next to `kubectl create --dry-run=client -o name -f` on the same file, in the same run.
# Reports wall-clock time and peak RSS (GNU time) of each run, and the ratio of the medians.
#
#   make bench-lint                      (builds the plugin and the pinned kubectl)
#   KUBECTL=path PLUGIN=path bash test/bench/lint.sh
#
# kubectl create needs an API server for discovery even with --dry-run=client: the script uses
# $KUBECONFIG if it reaches a cluster, otherwise it starts the local control plane
# (test/harness) for the duration of the run.
set -euo pipefail
cd "$(dirname "$0")/../.."

DOCS=${BENCH_DOCS:-10000}
RUNS=${BENCH_RUNS:-3}
KUBECTL=${KUBECTL:-kubectl}
PLUGIN=${PLUGIN:-bin/kubectl-indexed}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-lint: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 2; }

work=$(mktemp -d)
cluster_dir=""
cleanup() {
  if [ -n "$cluster_dir" ]; then go run ./test/harness/cmd/localcluster down --dir "$cluster_dir" >/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A deterministic stream: Job i is an Indexed Job whose numbers depend on i only; one in ten
# relies on the global backoffLimit (a warning), one in a hundred has an error.
stream="$work/jobs.yaml"
bash test/bench/jobstream.sh "$DOCS" > "$stream"

if ! "$KUBECTL" version --request-timeout=5s >/dev/null 2>&1; then
  cluster_dir="$work/cluster"
  echo "no reachable cluster for kubectl's discovery: starting the local control plane" >&2
  go run ./test/harness/cmd/localcluster up --dir "$cluster_dir" >/dev/null
  export KUBECONFIG="$cluster_dir/kubeconfig"
fi

# measure NAME CMD...: runs CMD RUNS times, prints one line per run, records the wall times.
declare -A walls
measure() {
  local name=$1; shift
  local i out
  walls[$name]=""
  for i in $(seq "$RUNS"); do
    out="$work/$name.$i"
    set +e
    "$TIME" -f '%e %M %x %U %S' -o "$out.time" "$@" >"$out.stdout" 2>"$out.stderr"
    set -e
    read -r wall rss code user sys < <(tail -1 "$out.time")
    printf '%-8s run %d: %6.2f s wall, %5.2f s CPU, %7.1f MiB peak RSS, exit %s, %s lines of output\n' \
      "$name" "$i" "$wall" "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$code" "$(wc -l < "$out.stdout")"
    walls[$name]+="$wall "
  done
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "stream: $DOCS Job documents, $(wc -c < "$stream") bytes, $(wc -l < "$stream") lines"
echo "kubectl: $("$KUBECTL" version --client -o json | grep -m1 gitVersion | tr -d ' ",')"
echo "plugin:  $("$PLUGIN" version)"
echo "runs:    $RUNS of each, one tool after the other; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "\$ kubectl create --dry-run=client -o name -f jobs.yaml"
measure kubectl "$KUBECTL" create --dry-run=client -o name -f "$stream"
echo "\$ kubectl-indexed lint jobs.yaml"
measure lint "$PLUGIN" lint "$stream"
echo "\$ kubectl-indexed lint -o json jobs.yaml"
measure lintjson "$PLUGIN" lint -o json "$stream"

k=$(echo "${walls[kubectl]}" | median)
l=$(echo "${walls[lint]}" | median)
j=$(echo "${walls[lintjson]}" | median)
echo
printf 'median wall: kubectl create --dry-run=client %.2f s; lint %.2f s (%.0f%% of kubectl); lint -o json %.2f s (%.0f%%)\n' \
  "$k" "$l" "$(echo "100 * $l / $k" | bc -l)" "$j" "$(echo "100 * $j / $k" | bc -l)"
tail -1 "$work/lint.1.stdout"
