#!/usr/bin/env bash
# Builds the pinned Kueue controller manager (sigs.k8s.io/kueue, ./kueue/go.mod) and copies its
# CRDs (config/components/crd/bases of the same module) next to the other control-plane binaries:
#   <bin dir>/kueue             the manager (cmd/kueue)
#   <bin dir>/kueue-crds/*.yaml the CustomResourceDefinitions it serves
# <bin dir> is the one test/cluster/build.sh uses (build.sh --print-bin-dir). Opt-in: only
# `make kueue-bins`, `make cluster-up INDEXED_KUEUE=1` and the e2e run (make e2e) call it.
# Nothing is downloaded except Go modules. A stamp keyed on the pinned version, the go.mod/go.sum,
# this script and the Go toolchain makes a second run a no-op.
#
# Usage: build-kueue.sh [--print-version] [--force]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

force=false
print_version=false
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    --print-version) print_version=true ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "build-kueue.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

kueue_version=$(cd kueue && GOFLAGS=-mod=mod go list -m -f '{{.Version}}' sigs.k8s.io/kueue)
if $print_version; then
  echo "$kueue_version"
  exit 0
fi
bin_dir=$(bash "$here/build.sh" --print-bin-dir)

stamp_input() {
  echo "kueue $kueue_version"
  go env GOVERSION GOOS GOARCH
  cat "$here/build-kueue.sh" kueue/go.mod kueue/go.sum
}
stamp=$(stamp_input | sha256sum | cut -d' ' -f1)
stamp_file="$bin_dir/.stamp-kueue"

# make check builds it in one lane while the other may ask for it (e2e-kueue): the second run
# waits for the first and then finds the stamp up to date, instead of building it again.
mkdir -p "$bin_dir"
if command -v flock >/dev/null; then
  exec 9>"$bin_dir/.kueue.lock"
  flock 9
fi

if ! $force && [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" && -x "$bin_dir/kueue" && -d "$bin_dir/kueue-crds" ]]; then
  echo "kueue $kueue_version up to date in $bin_dir"
  exit 0
fi

mkdir -p "$bin_dir"
stage=$(mktemp -d "$bin_dir/.build-kueue.XXXXXX")
trap 'rm -rf "$stage"' EXIT
rm -f "$stamp_file"
started=$(date +%s)

echo "building kueue $kueue_version into $bin_dir"
(cd kueue && go build -mod=readonly -trimpath -ldflags "-s -w" -o "$stage/kueue" sigs.k8s.io/kueue/cmd/kueue)

mod_dir=$(cd kueue && go list -mod=readonly -m -f '{{.Dir}}' sigs.k8s.io/kueue)
mkdir -p "$stage/kueue-crds"
cp "$mod_dir"/config/components/crd/bases/*.yaml "$stage/kueue-crds/"
chmod u+w "$stage"/kueue-crds/*.yaml

rm -rf "$bin_dir/kueue-crds"
mv -f "$stage/kueue-crds" "$bin_dir/kueue-crds"
mv -f "$stage/kueue" "$bin_dir/kueue"
echo "kueue $kueue_version" >"$bin_dir/VERSIONS-kueue"
echo "$stamp" >"$stamp_file"
echo "kueue built in $(( $(date +%s) - started ))s: $bin_dir/kueue"
