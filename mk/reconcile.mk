# kubectl indexed reconcile (issue 12). Included by the root Makefile.
#
#   make bench-reconcile   reconcile, offline, 1,000 shards and 1,000,000 cases from a
#                          generated receipts directory (1,100 receipts, 100,000 duplicate
#                          results): wall time and peak RSS, next to a manifest-only run
#
# BENCH_SHARDS, BENCH_CASES and BENCH_RUNS size the run (see test/bench/reconcile.sh).

.PHONY: bench-reconcile

bench-reconcile: build ## Benchmark reconcile on 1,000 shards and 1,000,000 cases from a receipts directory
	PLUGIN=bin/kubectl-indexed bash test/bench/reconcile.sh
