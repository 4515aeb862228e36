#!/usr/bin/env bash
# Runs this repository's .pre-commit-hooks.yaml with the real pre-commit, as a user's repository
# would (make lint-pre-commit): a scratch git repository whose .pre-commit-config.yaml names this
# repository (its HEAD commit) as the hook's repo. The hook must fail on examples/prepare-db.yaml
# and show the prepare-db-mode warning, and pass on examples/evaluation-job.yaml.
#
# pre-commit builds the hook from a clone of HEAD: commit what you want to test.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
rev=$(git -C "$root" rev-parse HEAD)
if [ -n "$(git -C "$root" status --porcelain -- .pre-commit-hooks.yaml cmd pkg go.mod go.sum)" ]; then
  echo "note: uncommitted changes are not in the hook: pre-commit builds commit $rev" >&2
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# pre-commit sets GOPATH to its own environment; keep the module cache the user already has.
GOMODCACHE=$(go env GOMODCACHE)
export GOMODCACHE
export PRE_COMMIT_HOME="$work/cache"

repo="$work/repo"
mkdir -p "$repo"
cp "$root/examples/prepare-db.yaml" "$root/examples/evaluation-job.yaml" "$repo/"
cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
- repo: $root
  rev: $rev
  hooks:
  - id: kubectl-indexed-lint
YAML
cd "$repo"
git init -q .
git add .

status=0
out=$(pre-commit run --files prepare-db.yaml 2>&1) || status=$?
printf '%s\n' "$out"
if [ "$status" -eq 0 ]; then
  echo "FAIL: the hook passed on prepare-db.yaml; it must fail" >&2
  exit 1
fi
for want in 'kubectl indexed lint' 'Failed' 'prepare-db-mode' 'backoffLimit 2 is shared by all 10 indexes'; do
  if ! grep -qF -- "$want" <<<"$out"; then
    echo "FAIL: the hook's output on prepare-db.yaml lacks \"$want\"" >&2
    exit 1
  fi
done
echo "ok: pre-commit run --files prepare-db.yaml failed (exit $status) with the prepare-db-mode warning"

if ! out=$(pre-commit run --files evaluation-job.yaml 2>&1); then
  printf '%s\n' "$out"
  echo "FAIL: the hook failed on evaluation-job.yaml, which has no error and no warning" >&2
  exit 1
fi
printf '%s\n' "$out"
echo "ok: pre-commit run --files evaluation-job.yaml passed"
