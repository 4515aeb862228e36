#!/usr/bin/env bash
# Builds the control-plane binaries and runs the harness unit tests and the e2e tests, from a
# cold machine (the first build of the binaries takes about 10-15 minutes on 2 cores; later
# runs reuse the cache). Called by CI; the same as `make cluster-bins e2e`.
set -euo pipefail
cd "$(dirname "$0")/../.."
began=$(date +%s)
bash test/cluster/build.sh
echo "ci.sh: cluster binaries ready after $(( $(date +%s) - began ))s"
go test -count=1 ./test/harness/...
E2E_SKIP_BUILD=1 go test -tags e2e -count=1 -timeout 40m ./test/e2e/...
echo "ci.sh: done after $(( $(date +%s) - began ))s"
