# Kueue on the local control plane (issue 33). Included by the root Makefile.
#
#   make kueue-bins                  build the pinned Kueue controller manager and copy its CRDs
#                                    into the cluster binary cache (test/cluster/build-kueue.sh;
#                                    no-op when up to date)
#   make cluster-up INDEXED_KUEUE=1  also start Kueue on the local control plane (docs/control-plane.md)
#   make e2e-kueue                   the Kueue e2e scenarios (test/e2e/kueue_test.go) against the
#                                    real manager; part of make check
#
# make e2e runs the Kueue scenarios when the manager is built and says it skips them otherwise;
# make e2e-kueue builds it and fails rather than skip. In make check the build (807 s cold on the
# shared 2-core machine) is a stage of lane 1, after the unit tests and fuzzing, so that it does
# not delay the control plane's build and the main e2e stage in lane 2; e2e-kueue is the last
# stage of lane 2's release checks (its kueue-bins is then a no-op).

INDEXED_KUEUE ?=

.PHONY: kueue-bins e2e-kueue

kueue-bins: ## Build the pinned Kueue controller manager and its CRDs into the cache (no-op when up to date)
	bash test/cluster/build-kueue.sh

e2e-kueue: cluster-bins kueue-bins ## The Kueue e2e scenarios against the real Kueue controller manager
	E2E_SKIP_BUILD=1 E2E_REQUIRE_KUEUE=1 go test -tags e2e -count=1 -timeout 20m ./test/e2e/ -run '^TestKueue' $(E2E_FLAGS)

CHECK_EXTRA += kueue-bins
CHECK_RELEASE += e2e-kueue

ifneq ($(INDEXED_KUEUE),)
cluster-up: kueue-bins
CLUSTER_UP_FLAGS += --kueue
endif
