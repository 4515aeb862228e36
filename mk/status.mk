# kubectl indexed status (issue 4). Included by the root Makefile.
#
#   make bench-status        run `kubectl indexed status` on a Job of 5,000 completions on a local
#                            control plane (started in a temp dir, stopped after), side by side with
#                            `kubectl get pods -o json` and `kubectl get --raw`: wall time, peak RSS
#   make bench-status-codec  the interval codec's benchmarks on 100,000-index strings
#   make golden-status       rewrite pkg/indexstatus/testdata/golden from test/fixtures (review the diff)
#
# BENCH_KUBECONFIG=path uses a running cluster instead; BENCH_COMPLETIONS, BENCH_RUNS,
# BENCH_RUN_TIME and BENCH_QUIET_WAIT size the run (see test/bench/status.sh). It takes about
# 20 minutes: the Job runs about 9, then the quiet table waits for etcd's next compaction.

.PHONY: bench-status bench-status-codec golden-status

bench-status: cluster-bins ## Benchmark kubectl indexed status against kubectl on a local control plane
	bash test/bench/status.sh

bench-status-codec: ## Benchmarks of the interval codec and of the report on large Jobs
	go test -run '^$$' -bench . -benchmem ./pkg/indexes/ ./pkg/indexstatus/

golden-status: ## Rewrite the status golden files from the captured fixtures
	go test ./pkg/indexstatus/ -run '^TestGolden$$' -update
