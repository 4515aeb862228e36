# kubectl indexed status (issue 4). Included by the root Makefile.
#
#   make bench-status        run `kubectl indexed status` on a Job of 5,000 completions on a local
#                            control plane (started in a temp dir, stopped after), side by side with
#                            `kubectl get pods -o json` and `kubectl get --raw`: wall time, peak RSS
#   make bench-status-codec  the interval codec's benchmarks on 100,000-index strings
#   make bench-status-offline  `status -f --pods-file` on generated files of 5,000 and 100,000 pods:
#                            wall time, user CPU, peak RSS (test/bench/status-offline.sh)
#   make bench-status-decoder  the pod JSON decoder (podstream.EachJSON, go-json-experiment) against
#                            encoding/json's streaming decoder on a generated list of 100,000 pods
#                            (test/bench/podjson, go test -bench)
#   make bench-status-podlist  the pod LIST through pkg/podstream against client-go's tools/pager,
#                            same run, 5,000 and 50,000 pods: ns/op, B/op, allocs/op, peak heap
#   make bench-status-read   the live read (issue 24): status, status --all-pods and kubectl get --raw
#                            of the pod list, side by side, on a finished Job of 5,000 succeeded
#                            pods, a finished one of 20,000 with 1% failed once, a running one of
#                            5,000 (test/bench/status-read.sh; BENCH_DONE, BENCH_BIG, BENCH_RUNNING
#                            size them; the Jobs take the better part of an hour to set up)
#   make golden-status       rewrite pkg/indexstatus/testdata/golden from test/fixtures (review the diff)
#
# BENCH_KUBECONFIG=path uses a running cluster instead; BENCH_COMPLETIONS, BENCH_RUNS,
# BENCH_RUN_TIME and BENCH_QUIET_WAIT size the run (see test/bench/status.sh). It takes about
# 20 minutes: the Job runs about 9, then the quiet table waits for etcd's next compaction.

.PHONY: bench-status-decoder bench-status bench-status-read bench-status-codec bench-status-offline bench-status-podlist golden-status

bench-status: cluster-bins ## Benchmark kubectl indexed status against kubectl on a local control plane
	bash test/bench/status.sh

bench-status-read: cluster-bins ## Benchmark the live status read (pods that did not succeed) against kubectl get --raw
	bash test/bench/status-read.sh

bench-status-codec: ## Benchmarks of the interval codec and of the report on large Jobs
	go test -run '^$$' -bench . -benchmem ./pkg/indexes/ ./pkg/indexstatus/

bench-status-offline: ## Benchmark the offline status report on generated files of 5,000 and 100,000 pods
	bash test/bench/status-offline.sh

bench-status-decoder: ## Benchmark the pod JSON decoder (podstream.EachJSON) against encoding/json streaming
	go run ./test/bench/statusgen -pods 100000 -dir $(or $(TMPDIR),/tmp)/kubectl-indexed-podjson >/dev/null
	PODS_FILE=$(or $(TMPDIR),/tmp)/kubectl-indexed-podjson/pods.json go test -run '^$$' -bench . -benchmem -count 6 ./test/bench/podjson

bench-status-podlist: ## Benchmark the streaming pod LIST against client-go's pager in the same run
	go test -run '^$$' -bench BenchmarkPodList -benchmem -benchtime 3x ./pkg/cmd/status/

golden-status: ## Rewrite the status golden files from the captured fixtures
	go test ./pkg/indexstatus/ -run '^TestGolden$$' -update
