#!/usr/bin/env bash
# Benchmark: `kubectl indexed reconcile --manifest FILE --receipts DIR` (offline) on
# BENCH_SHARDS shards (default 1,000) and BENCH_CASES cases (default 1,000,000): one receipt per
# shard, a second attempt for one shard in ten (100,000 duplicate results to resolve), one case
# missing from the last shard. Reports wall-clock time and peak RSS (GNU time) per run, and the
# same for a manifest-only run (an empty receipts directory), so that the memory the receipts
# add can be told from the manifest's.
#
#   PLUGIN=bin/kubectl-indexed bash test/bench/reconcile.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

SHARDS=${BENCH_SHARDS:-1000}
CASES=${BENCH_CASES:-1000000}
RUNS=${BENCH_RUNS:-3}
PLUGIN=${PLUGIN:-bin/kubectl-indexed}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-reconcile: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./test/bench/reconcilegen -shards "$SHARDS" -cases "$CASES" -dir "$work"
mkdir -p "$work/empty"
echo "manifest: $(du -h "$work/manifest.json" | cut -f1), receipts: $(find "$work/receipts" -name '*.receipt.json' | wc -l) files, $(du -sh "$work/receipts" | cut -f1)"

measure() {
  local label=$1; shift
  for _ in $(seq "$RUNS"); do
    set +e
    "$TIME" -f "%e %M" -o "$work/time" "$PLUGIN" reconcile "$@" -o json >"$work/out.json" 2>"$work/err"
    code=$?
    set -e
    read -r secs kb < <(tail -n 1 "$work/time")
    echo "$label: exit $code, ${secs}s, peak RSS $((kb / 1024)) MiB"
  done
}
measure "manifest only (no receipts)" --manifest "$work/manifest.json" --receipts "$work/empty"
measure "manifest + receipts" --manifest "$work/manifest.json" --receipts "$work/receipts"
python3 - "$work/out.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
c = r["coverage"]
print("report:", c["text"], "shards", c["shardsEvaluated"], "/", c["shards"], "duplicates", sum(s["duplicates"] for s in r["shards"]),
      "missing", [m["case"] for s in r["shards"] for m in s.get("missingCases", [])])
PY
