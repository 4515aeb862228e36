# The HTML report in a real browser (issue 34). Included by the root Makefile.
#
#   make browser-test   render `status -o html` of every captured fixture and of generated Jobs of
#                       10,000 and 100,000 indexes in headless Chromium (Debian's chromium, driven
#                       with chromedp from test/browser, a module of its own): every cell's colour
#                       is the state `status -o json` gives, no request leaves the page, no console
#                       error; the same for `status --lineage -o html` (lineagegen) and `reconcile -o
#                       html` (reconcilegen -mixed) against their -o json; writes
#                       test/browser/out/status-html-10000.png, lineage-html.png, reconcile-html.png.
#                       Installs chromium with apt when it is missing. Part of make check (lane 1).

.PHONY: browser-test chromium

chromium: ## Install Debian's chromium when no chromium is on PATH (for make browser-test)
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  echo "chromium: $$(command -v chromium || command -v chromium-browser)"; \
	else \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing chromium (apt)"; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi

browser-test: chromium ## Render status -o html in headless Chromium and check it against status -o json
	cd test/browser && go test -count=1 -timeout 15m -v . 2>&1 | grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+\S+_test.go)'; \
	  exit $${PIPESTATUS[0]}

CHECK_EXTRA += browser-test
