# kubectl indexed simulate. Included by the root Makefile.
#
#   make bench-simulate   simulate -o json on generated Jobs of 1,000 and 100,000 indexes (every
#                         100th failing once under backoffLimitPerIndex 1), and 100,000 indexes
#                         with parallelism 1,000: wall time, CPU time and peak RSS
#
# BENCH_INDEXES and BENCH_RUNS size the run (see test/bench/simulate.sh).

.PHONY: bench-simulate

bench-simulate: build ## Benchmark simulate on generated Jobs of 1,000 and 100,000 indexes
	PLUGIN=bin/kubectl-indexed bash test/bench/simulate.sh
