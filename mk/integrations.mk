# Where lint runs in CI (issue 23). Included by the root Makefile.
#
#   make lint-sarif        install the SARIF Multitool (the official SARIF validator, npm package
#                          @microsoft/sarif-multitool, a self-contained binary: no .NET runtime)
#                          into .tools/ and validate `lint -o sarif` over the lint corpus:
#                          0 error-level results, one result per finding
#   make lint-junit        parse `lint -o junit` over the corpus with junitparser (Debian's
#                          python3-junitparser, installed if missing): its counts must be lint's
#   make lint-pre-commit   run the repository's .pre-commit-hooks.yaml with the real pre-commit
#                          (Debian's pre-commit, installed if missing) on examples/prepare-db.yaml:
#                          the hook must fail and show the prepare-db-mode warning
#
# The installs use apt-get (as root, or through sudo) and npm; nothing else is fetched but Go
# modules, which pre-commit's golang hook builds from a clone of this repository.

SARIF_MULTITOOL_VERSION ?= 5.7.0
SARIF_MULTITOOL_DIR     := $(CURDIR)/.tools/sarif-multitool-$(SARIF_MULTITOOL_VERSION)
SARIF_MULTITOOL_STAMP   := $(SARIF_MULTITOOL_DIR)/.installed
# Debian's python: junitparser is a Debian package, which another python on PATH does not see.
JUNITPARSER_PYTHON      ?= /usr/bin/python3
SUDO                    := $(if $(filter 0,$(shell id -u)),,sudo)
APT_INSTALL             := $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y --no-install-recommends

.PHONY: lint-sarif lint-junit lint-pre-commit

CHECK_EXTRA += lint-sarif lint-junit lint-pre-commit

$(SARIF_MULTITOOL_STAMP):
	@mkdir -p $(SARIF_MULTITOOL_DIR)
	npm install --prefix $(SARIF_MULTITOOL_DIR) --no-save --no-audit --no-fund @microsoft/sarif-multitool@$(SARIF_MULTITOOL_VERSION)
	@touch $@

lint-sarif: $(SARIF_MULTITOOL_STAMP) ## Validate lint -o sarif over the lint corpus with the SARIF Multitool
	@# The package's bin.js runs the platform binary through a shell, which splits the --level
	@# list at its semicolons: run the binary it resolves to instead.
	tool=$$(cd $(SARIF_MULTITOOL_DIR) && node -p "require('@microsoft/sarif-multitool')"); \
	SARIF_MULTITOOL="$$tool" go test -count=1 -v -run '^TestSARIFMultitool$$' ./pkg/cmd/lint

lint-junit: ## Parse lint -o junit over the lint corpus with junitparser
	@$(JUNITPARSER_PYTHON) -c 'import junitparser' 2>/dev/null || { $(APT_INSTALL) python3-junitparser; }
	JUNITPARSER_PYTHON=$(JUNITPARSER_PYTHON) go test -count=1 -v -run '^TestJUnitParser$$' ./pkg/cmd/lint

lint-pre-commit: ## Run the pre-commit hook of this repository on examples/prepare-db.yaml
	@command -v pre-commit >/dev/null || { $(APT_INSTALL) pre-commit; }
	bash test/integrations/pre-commit.sh
