#!/usr/bin/env bash
# Benchmark `kubectl indexed status` on the project's local control plane against kubectl doing
# the same work, side by side in the same run:
#
#   (a) kubectl get pods -l batch.kubernetes.io/controller-uid=UID -o json   (decode + print)
#   (b) kubectl get --raw /api/v1/namespaces/NS/pods?labelSelector=...       (bytes off the wire: the floor)
#   (c) kubectl indexed status JOB                                           (what users run)
#   (d) kubectl-indexed status JOB -o json                                   (the plugin binary directly, JSON report)
#   (e) kubectl-indexed status JOB --chunk-size 500                          (every page 500 pods, as before)
#
# Each command is run BENCH_RUNS times, interleaved (a b c d e a b c d e ...) so that load from
# other work on the machine hits all of them alike; the table shows the median and the minimum
# wall time and the largest peak RSS (GNU time's %M) of each. Two tables:
#
#   1. A quiet cluster: no pod has changed since etcd's last compaction. The API server then holds
#      no watch-cache snapshot to serve a continue token from, and reads every page after the
#      first from etcd. The script waits for that state (up to BENCH_QUIET_WAIT seconds, default
#      900: the API server compacts every 5 minutes) and checks it: a continue request for the
#      Job's pods must raise apiserver_storage_list_total{resource="pods",storage="etcd"}.
#   2. A busy cluster: another small Job creates a pod every few seconds, so the watch cache
#      keeps fresh snapshots and serves continuation pages too.
#
# The Job: BENCH_COMPLETIONS indexes (default 5000), all running at once (parallelism =
# completions); with per-index retries; every index exits 0 after BENCH_RUN_TIME except a few
# that fail once (a replacement pod each) and one that keeps failing. The benchmark measures once
# the Job has finished, so every pod is present and nothing changes while it measures.
#
# Environment:
#   BENCH_KUBECONFIG   use this cluster instead of starting one (the script never stops it)
#   BENCH_COMPLETIONS  indexes of the Job (default 5000)
#   BENCH_RUNS         runs of each command (default 9)
#   BENCH_RUN_TIME     how long each pod runs (default 20s)
#   BENCH_QUIET_WAIT   seconds to wait for the quiet state (default 900; 0: do not wait)
#   BENCH_KEEP=1       keep the namespace (and a cluster the script started) afterwards
#   BENCH_NAMESPACE    measure the finished Job "bench" already in this namespace (from an earlier
#                      run with BENCH_KEEP=1) instead of creating one; it is not deleted
#
# Usage: bash test/bench/status.sh     (or make bench-status)
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
completions=${BENCH_COMPLETIONS:-5000}
runs=${BENCH_RUNS:-9}
run_time=${BENCH_RUN_TIME:-20s}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-status.XXXXXX")
cluster_dir=""

log() { printf 'bench-status: %s\n' "$*" >&2; }

cleanup() {
  local rc=$?
  if [[ -n "${churn:-}" ]]; then
    kubectl delete namespace "$churn" --wait=false >/dev/null 2>&1 || true
  fi
  if [[ -n "${ns:-}" && -z "${BENCH_KEEP:-}" ]]; then
    kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
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
  go run ./test/harness/cmd/localcluster up --dir "$cluster_dir" >&2
  export KUBECONFIG=$cluster_dir/kubeconfig
fi

if [[ -n "${BENCH_NAMESPACE:-}" ]]; then
  reuse=$BENCH_NAMESPACE
  export BENCH_KEEP=1
else
  ns="bench-status-$(date +%s)"
  kubectl create namespace "$ns" >/dev/null
  until kubectl get serviceaccount default -n "$ns" >/dev/null 2>&1; do sleep 0.2; done
fi

if [[ -n "${reuse:-}" ]]; then
  ns=$reuse
else
log "creating a Job of $completions indexes, parallelism $completions"
cat >"$work/job.yaml" <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: bench
spec:
  completionMode: Indexed
  completions: $completions
  parallelism: $completions
  backoffLimitPerIndex: 1
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes: {containerName: worker, operator: In, values: [42]}
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/run-time: "$run_time"
        scenario.indexed.kubectl.io/exit-code.7.0: "1"
        scenario.indexed.kubectl.io/exit-code.1234.0: "1"
        scenario.indexed.kubectl.io/exit-code.$((completions - 1)): "1"
        scenario.indexed.kubectl.io/exit-code.42: "42"
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: shard-worker:1.0
        command: ["/bin/process-shard"]
EOF
kubectl create -n "$ns" -f "$work/job.yaml" >/dev/null
fi
uid=$(kubectl get job bench -n "$ns" -o jsonpath='{.metadata.uid}')

start=$(date +%s)
while :; do
  conds=$(kubectl get job bench -n "$ns" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {end}')
  case "$conds" in *Complete=True*|*Failed=True*) break ;; esac
  if (( $(date +%s) - start > 1800 )); then log "the Job did not finish in 30 minutes: $conds"; exit 1; fi
  sleep 5
done
sel="batch.kubernetes.io/controller-uid=$uid"
pods=$(kubectl get pods -n "$ns" -l "$sel" --no-headers | wc -l)
log "the Job finished in $(( $(date +%s) - start ))s with $pods pods; measuring"

names=(a b c d e)
declare -A label cmd
label[a]="kubectl get pods -l ... -o json"
label[b]="kubectl get --raw (pod list, JSON)"
label[c]="kubectl indexed status bench"
label[d]="kubectl-indexed status bench -o json"
label[e]="kubectl-indexed status --chunk-size 500"
pods_url="/api/v1/namespaces/$ns/pods?labelSelector=${sel/=/%3D}"
cmd[a]="kubectl get pods -n $ns -l $sel -o json"
cmd[b]="kubectl get --raw $pods_url"
cmd[c]="kubectl indexed status bench -n $ns"
cmd[d]="kubectl-indexed status bench -n $ns -o json"
cmd[e]="kubectl-indexed status bench -n $ns --chunk-size 500"

stats() { # prints: median min max-peak-MiB
  sort -n "$1" | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
    END { med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
          printf "%.2f %.2f %.1f\n", med, t[1], m / 1024 }'
}

# measure TITLE: one warm-up run each (page cache), then BENCH_RUNS interleaved runs; a table.
measure() {
  local title=$1 n i secs kib med min peak ratio b_med
  for n in "${names[@]}"; do ${cmd[$n]} >/dev/null; rm -f "$work/samples.$n"; done
  for ((i = 1; i <= runs; i++)); do
    for n in "${names[@]}"; do
      /usr/bin/time -f "%e %M" -o "$work/time" ${cmd[$n]} >"$work/out.$n"
      read -r secs kib <"$work/time"
      echo "$secs $kib" >>"$work/samples.$n"
    done
  done
  # The outputs must be real: the pod list holds the pods, the report the Job.
  grep -q '"kind": "List"' "$work/out.a"
  grep -q '"kind":"PodList"' "$work/out.b"
  grep -q "^Phase:" "$work/out.c"
  grep -q '"kind": "IndexedJobStatus"' "$work/out.d"
  grep -q "^Phase:" "$work/out.e"
  read -r b_med _ _ < <(stats "$work/samples.b")
  echo
  echo "$title"
  echo
  printf '| %-44s | %12s | %12s | %15s | %10s |\n' "command" "median wall" "min wall" "peak RSS (MiB)" "vs (b)"
  printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..17})" "$(printf -- '-%.0s' {1..12})"
  for n in "${names[@]}"; do
    read -r med min peak < <(stats "$work/samples.$n")
    ratio=$(awk -v a="$med" -v b="$b_med" 'BEGIN { printf "%.2fx", a / b }')
    printf '| %-44s | %11ss | %11ss | %15s | %10s |\n' "(${n}) ${label[$n]}" "$med" "$min" "$peak" "$ratio"
  done
}

# etcd_pod_lists prints how many pod LISTs the API server has read from etcd (-1: its metrics
# cannot be read with this kubeconfig).
etcd_pod_lists() {
  kubectl get --raw /metrics 2>/dev/null |
    awk 'BEGIN { s = -1 } /^apiserver_/ { if (s < 0) s = 0 }
         /^apiserver_storage_list_total\{/ && /resource="pods"/ && /storage="etcd"/ { s += $2 }
         END { printf "%d\n", s }'
}

# continue_from_etcd: 0 when a continue request for the Job's pods is read from etcd.
continue_from_etcd() {
  local token before after
  token=$(kubectl get --raw "$pods_url&limit=1" | grep -o '"continue":"[^"]*"' | head -1 | cut -d'"' -f4)
  [[ -n "$token" ]] || return 1
  before=$(etcd_pod_lists)
  kubectl get --raw "$pods_url&limit=1&continue=$token" >/dev/null
  after=$(etcd_pod_lists)
  (( before >= 0 && after > before ))
}

echo
echo "Job: $completions completions, $pods pods, namespace $ns; $runs runs of each command, interleaved; $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. A quiet cluster: wait until the API server reads continuation pages of the Job's pods
#    from etcd (no watch-cache snapshot left at their revision), then measure.
quiet="quiet cluster (no pod changed since etcd's last compaction: pages after the first are read from etcd)"
if (( $(etcd_pod_lists) < 0 )); then
  quiet="quiet cluster (not checked: this kubeconfig cannot read the API server's metrics)"
else
  waited=0 wait_max=${BENCH_QUIET_WAIT:-900}
  until continue_from_etcd; do
    if (( waited >= wait_max )); then
      quiet="cluster after ${wait_max}s without pod changes (NOT quiet: continuation pages still came from the watch cache)"
      break
    fi
    (( waited == 0 )) && log "waiting for etcd's next compaction (up to ${wait_max}s), so that continuation pages are read from etcd"
    sleep 15
    waited=$((waited + 15))
  done
  log "quiet state after ${waited}s"
fi
measure "1. $quiet"

# 2. A cluster where pods come and go, as real clusters do: a small Job in another namespace
#    creates a pod every few seconds. Continuation pages are then served from the watch cache's
#    snapshots too. Every command is measured under the same conditions.
churn="bench-churn-$(date +%s)"
kubectl create namespace "$churn" >/dev/null
until kubectl get serviceaccount default -n "$churn" >/dev/null 2>&1; do sleep 0.2; done
kubectl create -n "$churn" -f - >/dev/null <<CHURN
apiVersion: batch/v1
kind: Job
metadata:
  name: churn
spec:
  completions: 100000
  parallelism: 1
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/run-time: "1s"
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: churn:1.0
CHURN
until [[ $(kubectl get pods -n "$churn" --no-headers 2>/dev/null | wc -l) -ge 3 ]]; do sleep 1; done
measure "2. busy cluster (another Job creates a pod every few seconds)"
kubectl delete namespace "$churn" --wait=false >/dev/null

echo
echo "commands:"
for n in "${names[@]}"; do echo "  ($n) ${cmd[$n]}"; done
