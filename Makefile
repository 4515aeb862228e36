# kubectl indexed: build, test and release.
#
#   make build        build bin/kubectl-indexed and bin/kubectl_complete-indexed
#   make install      install both into $(go env GOPATH)/bin (or $GOBIN)
#   make test         unit tests with -race
#   make check        everything CI runs (.ci/run): vet, lint, unit, fuzz, e2e, release checks
#   make cluster-up   start a local control plane (docs/control-plane.md); make cluster-down stops it

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

MODULE   := github.com/kubectl-indexed/kubectl-indexed
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -s -w -X $(MODULE)/pkg/version.version=$(VERSION) -X $(MODULE)/pkg/version.commit=$(COMMIT) -X $(MODULE)/pkg/version.date=$(DATE)
GOBIN    ?= $(shell go env GOBIN)
ifeq ($(GOBIN),)
GOBIN    := $(shell go env GOPATH)/bin
endif

TOOLS_BIN           := $(CURDIR)/.tools/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT       := $(TOOLS_BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
# Empty: each fuzz target runs for its count in hack/fuzz-budgets (why a count: see there).
FUZZTIME            ?=
FUZZ_BUDGETS        ?= hack/fuzz-budgets

BINARIES := kubectl-indexed kubectl_complete-indexed

# Feature areas add their own targets, and append to CHECK_EXTRA what `make check` must also
# run, in mk/*.mk (CHECK_RELEASE: release checks, run while e2e runs); the local control
# plane's targets are in test/cluster/cluster.mk.
CHECK_EXTRA :=
CHECK_RELEASE :=
# make check's lanes: 2 runs lane 1 (vet lint test fuzz CHECK_EXTRA) and lane 2 (cluster-bins,
# then e2e and CHECK_RELEASE) at once; 1 runs them one after the other (hack/check.sh).
CHECK_LANES ?= 2
-include test/cluster/cluster.mk
-include mk/*.mk

.PHONY: build
build: ## Build the plugin into bin/
	@mkdir -p bin
	@for b in $(BINARIES); do \
	  if [ -d ./cmd/$$b ]; then CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/$$b ./cmd/$$b; fi; \
	done
	@echo "built: $$(ls bin | tr '\n' ' ')"

.PHONY: install
install: ## Install the plugin into GOBIN so that `kubectl indexed` finds it
	@mkdir -p $(GOBIN)
	@for b in $(BINARIES); do \
	  if [ -d ./cmd/$$b ]; then CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $(GOBIN)/$$b ./cmd/$$b; fi; \
	done
	@echo "installed into $(GOBIN)"
	@case ":$$PATH:" in *":$(GOBIN):"*) ;; *) echo "note: $(GOBIN) is not on your PATH; add it so kubectl finds the plugin";; esac

.PHONY: test
test: ## Unit tests with the race detector
	go test -race -count=1 ./...

.PHONY: vet
vet:
	go vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^test/cluster/') 2>/dev/null); \
	if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi

$(GOLANGCI_LINT):
	@mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(TOOLS_BIN)/golangci-lint $(GOLANGCI_LINT)

.PHONY: lint
lint: $(GOLANGCI_LINT) ## golangci-lint at a pinned version
	$(GOLANGCI_LINT) run ./...

.PHONY: fuzz
fuzz: ## A short run of every fuzz target (counts in hack/fuzz-budgets, or FUZZTIME for all)
	@# The targets are found in the sources: go test -list would build every package's tests.
	@for pkg in $$(grep -l '^func Fuzz' $$(git ls-files 'pkg/*_test.go') | xargs -n1 dirname | sort -u); do \
	  for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$pkg/*_test.go); do \
	    budget="$(FUZZTIME)"; \
	    if [ -z "$$budget" ]; then \
	      budget=$$(awk -v p="$$pkg" -v t="$$target" '$$1 == p && $$2 == t { print $$3 }' $(FUZZ_BUDGETS)); \
	    fi; \
	    if [ -z "$$budget" ]; then \
	      echo "make fuzz: $$pkg $$target has no count in $(FUZZ_BUDGETS); add one (or set FUZZTIME)" >&2; exit 1; \
	    fi; \
	    echo "fuzz ./$$pkg $$target ($$budget)"; \
	    go test -run '^$$' -fuzz "^$$target$$" -fuzztime "$$budget" -fuzzminimizetime 10s ./$$pkg; \
	  done; \
	done

.PHONY: check
check: ## Everything CI runs, each stage timed (hack/check.sh)
	@CHECK_EXTRA="$(CHECK_EXTRA)" CHECK_RELEASE="$(CHECK_RELEASE)" CHECK_LANES="$(CHECK_LANES)" MAKE="$(MAKE)" bash hack/check.sh

.PHONY: clean
clean:
	rm -rf bin dist

