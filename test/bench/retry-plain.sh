#!/usr/bin/env bash
# Benchmark: `kubectl indexed retry` of a plain Indexed Job (one that create did not make), on
# the API server of KUBECONFIG (a local control plane: `make cluster-up`, or
# `go run ./test/harness/cmd/localcluster up --dir DIR`). Each chosen index becomes a Job of
# its own, so this measures 1, 10 and 1,000 chosen indexes, created for real: Jobs created,
# bytes of the objects sent (the same command with --dry-run=client -o json, which reads the
# root but sends nothing), wall time and peak RSS (GNU time) of the real run; and that 10,000 indexes are
# refused (exit 2) with no Job created (with --force, so that the limit, not the retries of
# 1,000 still running, is what refuses it).
#
# The root is a failed Indexed Job of 10,000 completions (parallelism 1, backoffLimit 0, every
# pod exits 1: the first failure fails it), so every index is retryable. The retries of 1, 10
# and 1,000 indexes take disjoint indexes (one retry at a time per shard) and succeed (their
# exit-code annotation is removed). The namespace is deleted at the end.
#
#   KUBECONFIG=.cluster/kubeconfig PLUGIN=bin/kubectl-indexed bash test/bench/retry-plain.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

PLUGIN=${PLUGIN:-bin/kubectl-indexed}
KUBECTL=${KUBECTL:-kubectl}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-retry: GNU time (/usr/bin/time) is needed" >&2; exit 2; }
[ -n "${KUBECONFIG:-}" ] || { echo "bench-retry: set KUBECONFIG to a cluster (make cluster-up)" >&2; exit 2; }

ns=bench-retry-$$
work=$(mktemp -d)
cleanup() { "$KUBECTL" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$KUBECTL" create namespace "$ns" >/dev/null

"$KUBECTL" -n "$ns" create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: root
spec:
  completionMode: Indexed
  completions: 10000
  parallelism: 1
  backoffLimit: 0
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/exit-code: "1"
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: registry.example/worker:1
        command: ["sh", "-c", "run-shard $JOB_COMPLETION_INDEX"]
YAML
"$KUBECTL" -n "$ns" wait --for=condition=Failed job/root --timeout=120s >/dev/null
echo "root: job root, 10000 completions, Failed"

jobs() { "$KUBECTL" -n "$ns" get jobs -o name | wc -l; }

measure() {
  local n=$1 list=$2
  local args=(retry root -n "$ns" --indexes "$list" --name "root-n$n"
    --pod-annotation scenario.indexed.kubectl.io/exit-code-)
  "$PLUGIN" "${args[@]}" --dry-run=client -o json >"$work/dry.json" 2>/dev/null
  local bytes objects
  bytes=$(wc -c <"$work/dry.json")
  objects=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d.get("items",[d])))' "$work/dry.json")
  local before after code
  before=$(jobs)
  set +e
  "$TIME" -f "%e %M" -o "$work/time" "$PLUGIN" "${args[@]}" -o name >"$work/out" 2>"$work/err"
  code=$?
  set -e
  after=$(jobs)
  read -r secs kb < <(tail -n 1 "$work/time")
  echo "$n indexes: exit $code, $((after - before)) Jobs created ($objects objects, $bytes bytes of JSON), ${secs}s, peak RSS $((kb / 1024)) MiB"
  [ "$code" = 0 ] || sed 's/^/  /' "$work/err"
}
measure 1 0
measure 10 1-10
measure 1000 11-1010

before=$(jobs)
set +e
"$TIME" -f "%e %M" -o "$work/time" "$PLUGIN" retry root -n "$ns" --indexes 0-9999 --name root-n10000 --force >"$work/out" 2>"$work/err"
code=$?
set -e
after=$(jobs)
read -r secs kb < <(tail -n 1 "$work/time")
echo "10000 indexes: exit $code (refused), $((after - before)) Jobs created, ${secs}s"
sed 's/^/  /' "$work/err"
