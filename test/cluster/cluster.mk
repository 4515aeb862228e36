# Targets for the project's real control plane (issue 3). Included by the root Makefile.
#
#   make cluster-bins   build the pinned kube-apiserver, kube-controller-manager, kube-scheduler,
#                       kubectl, etcd and kwok into the cache (a no-op when up to date)
#   make cluster-up     start a local cluster in $(CLUSTER_DIR); prints the kubeconfig to use
#   make cluster-down   stop it and remove its data (logs stay in $(CLUSTER_DIR)/logs)
#   make e2e            the e2e tests (test/e2e, build tag e2e) against a fresh cluster
#   make fixtures       re-capture test/fixtures/ from the scenarios (never edit them by hand)
#
# The binaries go to $${INDEXED_CLUSTER_BIN:-$${XDG_CACHE_HOME:-$$HOME/.cache}/kubectl-indexed/cluster/v1.37.2/bin}.

CLUSTER_DIR       ?= .cluster
CLUSTER_BUILD     := test/cluster/build.sh
CLUSTER_LOCAL     := go run ./test/harness/cmd/localcluster
E2E_TIMEOUT       ?= 40m
E2E_FLAGS         ?=
E2E_FIXTURES_FLAGS ?=
CLUSTER_UP_FLAGS  ?=

.PHONY: cluster-bins cluster-up cluster-down e2e fixtures

cluster-bins: ## Build the pinned control-plane binaries into the cache (no-op when up to date)
	bash $(CLUSTER_BUILD)

cluster-up: cluster-bins ## Start a local control plane in $(CLUSTER_DIR)
	$(CLUSTER_LOCAL) up --dir $(CLUSTER_DIR) $(CLUSTER_UP_FLAGS)

cluster-down: ## Stop the local control plane and remove its data
	$(CLUSTER_LOCAL) down --dir $(CLUSTER_DIR)

e2e: cluster-bins ## e2e tests against a real control plane
	E2E_SKIP_BUILD=1 go test -tags e2e -count=1 -timeout $(E2E_TIMEOUT) ./test/e2e/... $(E2E_FLAGS)

fixtures: cluster-bins ## Re-capture test/fixtures/ from the real control plane
	E2E_SKIP_BUILD=1 go test -tags e2e -count=1 -timeout 20m ./test/e2e/ -run '^TestCaptureFixtures$$' -capture -v $(E2E_FIXTURES_FLAGS)
