# Distribution of kubectl indexed (issue 7): goreleaser, the krew manifest, and krew's own tools
# checking both. Included by the root Makefile.
#
#   make goreleaser-check  goreleaser check (.goreleaser.yaml)
#   make dist              goreleaser snapshot build of every platform into dist/
#   make krew-manifest     dist, then copy goreleaser's krew manifest (its krews section, from
#                          krew/*.txt and the archives' real sha256 values) to plugins/indexed.yaml
#                          (commit it)
#   make krew-check        krew-index's review rules on goreleaser's manifest (hack/krew-check.sh),
#                          and the committed one is up to date
#   make validate-krew     krew's validate-krew-manifest on plugins/indexed.yaml, and on goreleaser's
#                          manifest pointed at dist/ served on loopback, installing every platform
#   make krew-smoke        install the snapshot archive with krew in a throwaway KREW_ROOT and run
#                          `kubectl indexed version` and completion through kubectl
#
# The tools are pinned and built from the Go module proxy into .tools/ on first use.

GORELEASER_VERSION     := v2.15.1
GORELEASER             := $(TOOLS_BIN)/goreleaser-$(GORELEASER_VERSION)
# Parallel goreleaser builds (each a `go build`, itself parallel): while one build links (mostly
# one core), the other compiles. Build times are in docs/benchmarks.md ("Release builds").
GORELEASER_PARALLELISM ?= 2
KREW_VERSION           := v0.4.3
KREW_TOOLS             := $(TOOLS_BIN)/krew-$(KREW_VERSION)
KREW                   := $(KREW_TOOLS)/kubectl-krew
VALIDATE_KREW          := $(KREW_TOOLS)/validate-krew-manifest
KREW_GENERATED         := dist/krew/indexed.yaml
# What the checks below read from a build: made by `make dist` when missing. `make dist`
# always rebuilds; run it first when the tree changed since the last build.
DIST_BUILT             := dist/artifacts.json

.PHONY: goreleaser-check dist krew-manifest krew-check validate-krew krew-smoke

$(GORELEASER):
	@mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN)/goreleaser.tmp go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	mv $(TOOLS_BIN)/goreleaser.tmp/goreleaser $(GORELEASER)
	rmdir $(TOOLS_BIN)/goreleaser.tmp

# krew's own CLI and its manifest validator, from the sigs.k8s.io/krew module.
$(KREW) $(VALIDATE_KREW) &:
	@mkdir -p $(KREW_TOOLS)
	GOBIN=$(KREW_TOOLS) go install sigs.k8s.io/krew/cmd/krew@$(KREW_VERSION) sigs.k8s.io/krew/cmd/validate-krew-manifest@$(KREW_VERSION)
	mv $(KREW_TOOLS)/krew $(KREW)

goreleaser-check: $(GORELEASER) ## goreleaser check
	$(GORELEASER) check

$(DIST_BUILT):
	$(MAKE) dist

dist: $(GORELEASER) ## Snapshot build of every platform into dist/
	@start=$$(date +%s); \
	$(GORELEASER) release --snapshot --clean --parallelism $(GORELEASER_PARALLELISM); \
	echo "dist: snapshot build took $$(( $$(date +%s) - start ))s"; \
	ls -l dist/*.tar.gz dist/*.zip | awk '{ printf "dist: %6.1f MiB  %s\n", $$5/1048576, $$9 }'

krew-manifest: dist ## Regenerate plugins/indexed.yaml from a snapshot build
	cp $(KREW_GENERATED) plugins/indexed.yaml

krew-check: $(DIST_BUILT) ## goreleaser's krew manifest follows krew-index's rules; the committed one is up to date
	bash hack/krew-check.sh $(KREW_GENERATED) plugins/indexed.yaml

validate-krew: $(DIST_BUILT) $(KREW) $(VALIDATE_KREW) cluster-bins ## krew's validate-krew-manifest, structural and installing every platform
	$(VALIDATE_KREW) -skip-install -manifest plugins/indexed.yaml
	PATH="$(KREW_TOOLS):$$(bash $(CLUSTER_BUILD) --print-bin-dir):$$PATH" \
	  bash hack/krew-serve.sh dist $(VALIDATE_KREW)

krew-smoke: $(DIST_BUILT) $(KREW) cluster-bins ## Install the snapshot archive with krew and run it through kubectl
	bash hack/krew-smoke.sh $(KREW) $(KREW_GENERATED) dist "$$(bash $(CLUSTER_BUILD) --print-bin-dir)"

CHECK_RELEASE += goreleaser-check dist krew-check validate-krew krew-smoke
