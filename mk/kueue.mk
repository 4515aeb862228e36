# Kueue on the local control plane (issue 33). Included by the root Makefile.
#
#   make kueue-bins                build the pinned Kueue controller manager and copy its CRDs into
#                                  the cluster binary cache (test/cluster/build-kueue.sh; no-op when
#                                  up to date)
#   make cluster-up INDEXED_KUEUE=1  also start Kueue on the local control plane (docs/control-plane.md)
#
# make e2e builds it too: the Kueue scenarios (test/e2e/kueue_test.go) run against the real manager.

INDEXED_KUEUE ?=

.PHONY: kueue-bins

kueue-bins: ## Build the pinned Kueue controller manager and its CRDs into the cache (no-op when up to date)
	bash test/cluster/build-kueue.sh

e2e: kueue-bins

ifneq ($(INDEXED_KUEUE),)
cluster-up: kueue-bins
CLUSTER_UP_FLAGS += --kueue
endif
