# Documentation checks (issue 15). Included by the root Makefile.
#
#   make doc-links   every relative link and #anchor in the Markdown files (README.md,
#                    CONTRIBUTING.md, docs/, test/README.md) resolves; part of make check.
#                    The same check runs in make test as hack/doclinks' TestRepositoryLinksResolve.

.PHONY: doc-links

doc-links: ## Check the relative links and anchors of every Markdown file
	go run ./hack/doclinks

CHECK_EXTRA += doc-links
