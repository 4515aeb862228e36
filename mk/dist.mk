# Distribution of kubectl indexed (issue 7): goreleaser, the krew manifest, and krew's own tools
# checking both. Included by the root Makefile.
#
#   make goreleaser-check  goreleaser check (.goreleaser.yaml)
#   make dist              goreleaser snapshot build of every platform into dist/
#                          (DIST_TARGETS=linux_amd64_v1,...: only those, from a copy of the config)
#   make dist-host         the same build for this machine's platform only (what make check runs)
#   make release-check     every release check below on every platform (before a tag)
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
# Empty: every platform of .goreleaser.yaml. Otherwise goreleaser targets (os_arch, with amd64's
# version: linux_amd64_v1) that `make dist` builds, from a copy of .goreleaser.yaml with a
# `targets` list in each build (goreleaser's own override of goos x goarch). make check builds
# only the host's: each other platform is a cold compile of the whole dependency graph (398 CPU-s
# for darwin/arm64, measured in docs/benchmarks.md, "Release builds"), about 2,000 CPU-s of a
# cold make check for the five, while a cross-compile failure of this pure-Go, cgo-free module
# is caught by `make release-check` before a tag.
DIST_TARGETS           ?=
HOST_TARGET            := $(shell go env GOOS)_$(shell go env GOARCH)$(if $(filter amd64,$(shell go env GOARCH)),_v1)
DIST_CONFIG            := $(if $(DIST_TARGETS),$(TOOLS_BIN)/goreleaser-targets.yaml,.goreleaser.yaml)

.PHONY: goreleaser-check dist dist-host release-check krew-manifest krew-check validate-krew krew-smoke

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

dist: $(GORELEASER) ## Snapshot build of every platform into dist/ (or of DIST_TARGETS)
	@if [ -n "$(DIST_TARGETS)" ]; then \
	  mkdir -p $(TOOLS_BIN); \
	  sed 's/^\(    \)goarch: .*/&\n\1targets: [$(DIST_TARGETS)]/' .goreleaser.yaml >$(DIST_CONFIG); \
	  [ "$$(grep -c '^    targets: ' $(DIST_CONFIG))" = "$$(grep -c '^    goarch: ' .goreleaser.yaml)" ] || \
	    { echo "dist: could not add targets to every build of .goreleaser.yaml" >&2; exit 1; }; \
	fi
	@start=$$(date +%s); \
	$(GORELEASER) release --snapshot --clean --parallelism $(GORELEASER_PARALLELISM) --config $(DIST_CONFIG); \
	echo "dist: snapshot build of $(or $(DIST_TARGETS),every platform) took $$(( $$(date +%s) - start ))s"; \
	find dist -maxdepth 1 \( -name '*.tar.gz' -o -name '*.zip' \) -printf '%s %p\n' | sort -k2 | \
	  awk '{ printf "dist: %6.1f MiB  %s\n", $$1/1048576, $$2 }'

dist-host: ## Snapshot build of this machine's platform only into dist/
	$(MAKE) --no-print-directory dist DIST_TARGETS=$(HOST_TARGET)

krew-manifest: ## Regenerate plugins/indexed.yaml from a snapshot build of every platform
	$(MAKE) --no-print-directory dist DIST_TARGETS=
	cp $(KREW_GENERATED) plugins/indexed.yaml

# The release checks on every platform, one after the other (make check runs them on dist-host).
release-check: ## Every release check on a snapshot build of every platform (before a tag)
	$(MAKE) --no-print-directory goreleaser-check
	$(MAKE) --no-print-directory dist DIST_TARGETS=
	$(MAKE) --no-print-directory krew-check validate-krew krew-smoke

krew-check: $(DIST_BUILT) ## goreleaser's krew manifest follows krew-index's rules; the committed one is up to date
	bash hack/krew-check.sh $(KREW_GENERATED) plugins/indexed.yaml

validate-krew: $(DIST_BUILT) $(KREW) $(VALIDATE_KREW) cluster-bins ## krew's validate-krew-manifest, structural and installing every platform
	$(VALIDATE_KREW) -skip-install -manifest plugins/indexed.yaml
	PATH="$(KREW_TOOLS):$$(bash $(CLUSTER_BUILD) --print-bin-dir):$$PATH" \
	  bash hack/krew-serve.sh dist $(VALIDATE_KREW)

krew-smoke: $(DIST_BUILT) $(KREW) cluster-bins ## Install the snapshot archive with krew and run it through kubectl
	bash hack/krew-smoke.sh $(KREW) $(KREW_GENERATED) dist "$$(bash $(CLUSTER_BUILD) --print-bin-dir)"

CHECK_RELEASE += goreleaser-check dist-host krew-check validate-krew krew-smoke
