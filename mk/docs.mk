# Documentation checks (issue 15). Included by the root Makefile.
#
#   make doc-links   every relative link and #anchor in the Markdown files (README.md,
#                    CONTRIBUTING.md, docs/, test/README.md) resolves; part of make check.
#                    The same check runs in make test as hack/doclinks' TestRepositoryLinksResolve.
#   make doc-flags   every flag table of docs/<verb>.md says what the verb's --help says; part
#                    of make check, and in make test as hack/docflags' TestRepositoryFlagTablesAreTrue.
#                    After changing a flag: make doc-flags-update (go run ./hack/docflags -update).

.PHONY: doc-links doc-flags doc-flags-update

doc-links: ## Check the relative links and anchors of every Markdown file
	go run ./hack/doclinks

doc-flags: ## Check that the flag tables of docs/<verb>.md match the commands' flags
	go run ./hack/docflags

doc-flags-update: ## Rewrite the flag tables of docs/<verb>.md from the commands' flags
	go run ./hack/docflags -update

CHECK_EXTRA += doc-links doc-flags
