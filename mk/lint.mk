# Targets of `kubectl indexed lint` (issue 2). Included by the root Makefile.
#
#   make lint-verdicts   re-record test/lint/corpus/verdicts.json: what a real v1.37.2 API server
#                        answers to `kubectl create --dry-run=server -f FILE` for every corpus
#                        manifest (starts its own local control plane and stops it afterwards;
#                        set LINT_KUBECONFIG to ask an already running cluster instead)
#   make bench-lint      lint a generated 10,000-Job stream next to
#                        `kubectl create --dry-run=client -o name -f` on the same file
#   make lint-bigfile    the 50 MB input test of lint without the race detector (make test runs
#                        with -race, where it takes minutes and skips itself); part of make check
#
# The offline check of lint against the recorded verdicts is a unit test (pkg/lint, make test);
# the live re-check is the e2e test test/e2e/lint_corpus_test.go (make e2e).

LINT_CLUSTER_DIR ?= $(or $(TMPDIR),/tmp)/kubectl-indexed-lint-verdicts
LINT_KUBECONFIG  ?=
BENCH_DOCS       ?= 10000

.PHONY: lint-verdicts bench-lint lint-bigfile

CHECK_EXTRA += lint-bigfile

lint-bigfile: ## lint's 50 MB input test, without -race
	go test -count=1 -run '^TestFiftyMegabytes$$' ./pkg/cmd/lint

lint-verdicts: cluster-bins ## Re-record the API server's verdicts on the lint corpus
	@bin_dir=$$(bash $(CLUSTER_BUILD) --print-bin-dir); \
	if [ -n "$(LINT_KUBECONFIG)" ]; then \
	  go run ./test/lint/cmd/record-verdicts --kubeconfig "$(LINT_KUBECONFIG)" --kubectl "$$bin_dir/kubectl"; \
	else \
	  $(CLUSTER_LOCAL) up --dir "$(LINT_CLUSTER_DIR)"; \
	  trap '$(CLUSTER_LOCAL) down --dir "$(LINT_CLUSTER_DIR)"' EXIT; \
	  go run ./test/lint/cmd/record-verdicts --kubeconfig "$(LINT_CLUSTER_DIR)/kubeconfig" --kubectl "$$bin_dir/kubectl"; \
	fi

bench-lint: build cluster-bins ## Benchmark lint against kubectl create --dry-run=client on 10,000 Jobs
	BENCH_DOCS=$(BENCH_DOCS) KUBECTL="$$(bash $(CLUSTER_BUILD) --print-bin-dir)/kubectl" bash test/bench/lint.sh
