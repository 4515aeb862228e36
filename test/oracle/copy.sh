#!/usr/bin/env bash
# Copies the v1.37.2 Job controller's own files (k8s.io/kubernetes pkg/controller/job, non-test)
# unchanged from the Go module cache into job/, next to the harness (oracle_box.go). They are
# never committed (job/.gitignore) and the plugin module never imports them.
set -euo pipefail
cd "$(dirname "$0")"
dir=$(go mod download -json k8s.io/kubernetes@v1.37.2 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "copy.sh: k8s.io/kubernetes@v1.37.2 not in the module cache" >&2; exit 1; }
for f in "$dir"/pkg/controller/job/*.go; do
  case "$f" in *_test.go) continue;; esac
  install -m 0644 "$f" job/
done
