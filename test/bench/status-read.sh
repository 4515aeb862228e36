#!/usr/bin/env bash
# Benchmark the live read of `kubectl indexed status` (issue 24): the pods that did not succeed
# (the default) and every pod (--all-pods), side by side in the same run with the floor of
# reading every pod, `kubectl get --raw` of the Job's pod list:
#
#   (b) kubectl get --raw /api/v1/namespaces/NS/pods?labelSelector=...   (every pod, JSON bytes)
#   (c) kubectl-indexed status JOB                                        (pods that did not succeed)
#   (d) kubectl-indexed status JOB --all-pods                             (every pod, protobuf)
#
# on three Jobs made by the Job controller of the local control plane, each in a namespace of its
# own (NS-done, NS-failed1, NS-running): the server answers a pod LIST with a label or field
# selector by scanning every pod of the namespace (its watch cache indexes neither), so in a
# shared namespace the finished Jobs' reads would time the other Jobs' pods too:
#
#   done      finished, BENCH_DONE indexes (default 5000), every pod succeeded
#   failed1   finished, BENCH_BIG indexes (default 20000), 1% of them failing once first
#             (backoffLimitPerIndex 1: one failed pod and one succeeded pod each)
#   running   BENCH_RUNNING indexes (default 5000), every pod running (an hour long)
#
# Each command runs BENCH_RUNS times (default 9), interleaved (b c d b c d ...) after one
# warm-up each; a table per Job gives the median and minimum wall time, the largest peak RSS
# (GNU time's %M) and the ratio of the median to (b)'s. It makes the Jobs one at a time, each
# once the one before is ready, and prints how long each took to set up: the Job controller
# creates pods and removes their finalizers at its client's rate, and the scheduler binds them
# at its own, which the cluster the script starts raises from their defaults (20 and 50 requests
# per second); with BENCH_KUBECONFIG, mind that cluster's rates and its pod GC threshold
# (--terminated-pod-gc-threshold). Set a size to 0 to skip that Job.
#
# Environment:
#   BENCH_KUBECONFIG   use this cluster instead of starting one (the script never stops it)
#   BENCH_NAMESPACE    with BENCH_KUBECONFIG: measure the Jobs done, failed1 and running already
#                      in the namespaces BENCH_NAMESPACE-done, -failed1 and -running (made by
#                      an earlier run kept with BENCH_KEEP=1, or left by one that was stopped),
#                      those present only; nothing is created or deleted
#   BENCH_DONE, BENCH_BIG, BENCH_RUNNING   sizes (see above)
#   BENCH_RUNS         runs of each command (default 9)
#   BENCH_KEEP=1       keep the namespaces (and a cluster the script started) afterwards
#
# Usage: bash test/bench/status-read.sh     (or make bench-status-read)
set -euo pipefail

cd "$(dirname "$0")/../.."
done_n=${BENCH_DONE:-5000}
big_n=${BENCH_BIG:-20000}
running_n=${BENCH_RUNNING:-5000}
runs=${BENCH_RUNS:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-status-read.XXXXXX")
cluster_dir=""

log() { printf 'bench-status-read: %s\n' "$*" >&2; }

cleanup() {
  local rc=$?
  if [[ -n "${ns:-}" && -z "${BENCH_KEEP:-}" && -z "${BENCH_NAMESPACE:-}" ]]; then
    for j in done failed1 running; do kubectl delete namespace "$ns-$j" --wait=false >/dev/null 2>&1 || true; done
  fi
  if [[ -n "$cluster_dir" && -z "${BENCH_KEEP:-}" ]]; then
    go run ./test/harness/cmd/localcluster down --dir "$cluster_dir" >&2 || true
  fi
  if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else log "kept $work"; fi
  exit $rc
}
trap cleanup EXIT

[[ -x /usr/bin/time ]] || { log "needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }

log "building the plugin"
mkdir -p "$work/bin"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/bin/kubectl-indexed" ./cmd/kubectl-indexed
bin_dir=$(bash test/cluster/build.sh --print-bin-dir)
[[ -x "$bin_dir/kubectl" ]] || { log "no kubectl in $bin_dir: run make cluster-bins"; exit 2; }
export PATH="$work/bin:$bin_dir:$PATH"

if [[ -n "${BENCH_KUBECONFIG:-}" ]]; then
  export KUBECONFIG=$BENCH_KUBECONFIG
else
  cluster_dir="$work/cluster"
  log "starting a local control plane in $cluster_dir"
  # The Job controller's client rate bounds the setup (the default 20 requests per second: about
  # 90 minutes for the three Jobs), and the pod garbage collector's default threshold of 12,500
  # terminated pods would delete the finished Jobs' pods while the big one runs (a run that
  # kept the defaults measured the 5,000-pod Job with 0 pods left): raise both. Neither changes
  # what is measured, the reads of status and kubectl.
  # The scheduler's rate (50 requests per second) bounds it too, once the Jobs' pods are created
  # faster than it binds them: raise it as well.
  INDEXED_CONTROLLER_MANAGER_FLAGS="--kube-api-qps=400 --kube-api-burst=800 --terminated-pod-gc-threshold=100000" \
    INDEXED_SCHEDULER_FLAGS="--kube-api-qps=400 --kube-api-burst=800" \
    go run ./test/harness/cmd/localcluster up --dir "$cluster_dir" >&2
  export KUBECONFIG=$cluster_dir/kubeconfig
fi

if [[ -n "${BENCH_NAMESPACE:-}" ]]; then
  [[ -n "${BENCH_KUBECONFIG:-}" ]] || { log "BENCH_NAMESPACE needs BENCH_KUBECONFIG"; exit 2; }
  ns=$BENCH_NAMESPACE
else
  ns="bench-read-$(date +%s)"
fi

# job NAME COMPLETIONS RUN_TIME FAILING: an Indexed Job, all indexes at once; FAILING indexes
# (every 100th when "1%") fail once with exit 1, then succeed.
job() {
  local name=$1 n=$2 run_time=$3 failing=$4 ann="" i
  if [[ $failing == 1% ]]; then
    for ((i = 0; i < n; i += 100)); do ann+="        scenario.indexed.kubectl.io/exit-code.$i.0: \"1\""$'\n'; done
  fi
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
spec:
  completionMode: Indexed
  completions: $n
  parallelism: $n
  backoffLimitPerIndex: 1
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/run-time: "$run_time"
$ann    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: shard-worker:1.0
        command: ["/bin/process-shard"]
EOF
}

# ready J: the Job finished (finished) or runs every index with the controller's counts settled.
ready() {
  local j=$1 st
  st=$(kubectl get job "$j" -n "$ns-$j" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {end}|{.status.active}|{.status.ready}|{.status.uncountedTerminatedPods}')
  if [[ ${want[$j]} == finished ]]; then
    case "$st" in *Complete=True*|*Failed=True*) [[ $st == *"|{}" || $st == *"|" ]] ;; *) return 1 ;; esac
  else
    [[ $st == *"|${size[$j]}|${size[$j]}|"* ]]
  fi
}
declare -A size want started
size[done]=$done_n size[failed1]=$big_n size[running]=$running_n
want[done]=finished want[failed1]=finished want[running]=running
jobs=()
wait_ready() {
  local j=$1
  until ready "$j"; do
    if (( $(date +%s) - started[$j] > 5400 )); then log "Job $j not ready in 90 minutes"; exit 1; fi
    sleep 10
  done
  log "Job $j ready after $(( $(date +%s) - started[$j] ))s (setup)"
}
for j in done failed1 running; do
  if [[ -n "${BENCH_NAMESPACE:-}" ]]; then
    n=$(kubectl get job "$j" -n "$ns-$j" -o jsonpath='{.spec.completions}' 2>/dev/null) || continue
    size[$j]=$n
    jobs+=("$j")
    started[$j]=$(date +%s)
    log "measuring the Job $j of $n indexes already in namespace $ns-$j"
    wait_ready "$j"
    continue
  fi
  (( size[$j] > 0 )) || continue
  jobs+=("$j")
  kubectl create namespace "$ns-$j" >/dev/null
  until kubectl get serviceaccount default -n "$ns-$j" >/dev/null 2>&1; do sleep 0.2; done
  rt=1s; [[ $j == running ]] && rt=2h
  fail=""; [[ $j == failed1 ]] && fail=1%
  job "$j" "${size[$j]}" "$rt" "$fail" >"$work/$j.yaml"
  kubectl create -n "$ns-$j" -f "$work/$j.yaml" >/dev/null
  started[$j]=$(date +%s)
  log "created Job $j of ${size[$j]} indexes"
  # One Job at a time: on 2 cores the control plane made about 3 pods a second with the three
  # Jobs at once, against 17 to 54 with one (the 20,000-pod Job, whose pods carry 200
  # annotations each, the slowest).
  wait_ready "$j"
done

stats() { # prints: median min max-peak-MiB
  sort -n "$1" | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
    END { med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
          printf "%.3f %.3f %.1f\n", med, t[1], m / 1024 }'
}

names=(b c d)
declare -A label cmd
label[b]="kubectl get --raw (every pod, JSON)"
label[c]="kubectl-indexed status JOB"
label[d]="kubectl-indexed status JOB --all-pods"
for j in "${jobs[@]}"; do
  jns=$ns-$j
  uid=$(kubectl get job "$j" -n "$jns" -o jsonpath='{.metadata.uid}')
  sel="batch.kubernetes.io/controller-uid=$uid"
  # (The items of a JSON list carry no kind: count the names kubectl prints.)
  pods=$(kubectl get pods -n "$jns" -l "$sel" -o name | wc -l)
  cmd[b]="kubectl get --raw /api/v1/namespaces/$jns/pods?labelSelector=${sel/=/%3D}"
  cmd[c]="kubectl-indexed status $j -n $jns -o json"
  cmd[d]="kubectl-indexed status $j -n $jns -o json --all-pods"
  for n in "${names[@]}"; do ${cmd[$n]} >/dev/null; rm -f "$work/samples.$n"; done
  for ((i = 1; i <= runs; i++)); do
    for n in "${names[@]}"; do
      /usr/bin/time -f "%e %M" -o "$work/time" ${cmd[$n]} >"$work/out.$n"
      read -r secs kib <"$work/time"
      echo "$secs $kib" >>"$work/samples.$n"
    done
  done
  grep -q '"kind":"PodList"' "$work/out.b"
  grep -q '"kind": "IndexedJobStatus"' "$work/out.c"
  grep -q '"kind": "IndexedJobStatus"' "$work/out.d"
  notread=$(grep -o '"notRead": [0-9]*' "$work/out.c" || echo '"notRead": 0')
  read -r b_med _ _ < <(stats "$work/samples.b")
  echo
  echo "Job $j: ${size[$j]} indexes, $pods pods, ${want[$j]}; status read: $notread"
  echo
  printf '| %-40s | %12s | %12s | %15s | %10s |\n' "command" "median wall" "min wall" "peak RSS (MiB)" "vs (b)"
  printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..42})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..17})" "$(printf -- '-%.0s' {1..12})"
  for n in "${names[@]}"; do
    read -r med min peak < <(stats "$work/samples.$n")
    ratio=$(awk -v a="$med" -v b="$b_med" 'BEGIN { printf "%.2fx", a / b }')
    printf '| %-40s | %11ss | %11ss | %15s | %10s |\n' "(${n}) ${label[$n]}" "$med" "$min" "$peak" "$ratio"
  done
done
