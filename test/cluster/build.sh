#!/usr/bin/env bash
# Builds the pinned control-plane binaries the e2e tests and `make cluster-up` run:
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  (k8s.io/kubernetes, ./go.mod)
#   etcd                                                               (go.etcd.io/etcd/server/v3, ./etcd/go.mod)
#   kwok                                                               (sigs.k8s.io/kwok, ./kwok/go.mod)
#
# The versions are the ones pinned in those go.mod files (with their go.sum); nothing is
# downloaded except Go modules. Binaries go to a cache directory outside git:
#   ${INDEXED_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-indexed/cluster/<k8s version>/bin}
# A stamp file keyed on the pinned versions, the go.mod/go.sum files, this script and the Go
# toolchain makes a second run a no-op.
#
# Usage: build.sh [--print-bin-dir] [--force]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

print_only=false
force=false
for arg in "$@"; do
  case "$arg" in
    --print-bin-dir) print_only=true ;;
    --force) force=true ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

modversion() { # dir module
  (cd "$1" && GOFLAGS=-mod=mod go list -m -f '{{.Version}}' "$2")
}

k8s_version=$(modversion . k8s.io/kubernetes)
etcd_version=$(modversion etcd go.etcd.io/etcd/server/v3)
kwok_version=$(modversion kwok sigs.k8s.io/kwok)
if [[ ! "$k8s_version" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]]; then
  echo "build.sh: cannot parse k8s.io/kubernetes version '$k8s_version' from $here/go.mod" >&2
  exit 1
fi
k8s_major=${BASH_REMATCH[1]}
k8s_minor=${BASH_REMATCH[2]}

bin_dir=${INDEXED_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-indexed/cluster/$k8s_version/bin}
if $print_only; then
  echo "$bin_dir"
  exit 0
fi

binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)

stamp_input() {
  echo "kubernetes $k8s_version"
  echo "etcd $etcd_version"
  echo "kwok $kwok_version"
  go env GOVERSION GOOS GOARCH
  cat "$here/build.sh" go.mod go.sum etcd/go.mod etcd/go.sum kwok/go.mod kwok/go.sum
}
stamp=$(stamp_input | sha256sum | cut -d' ' -f1)
stamp_file="$bin_dir/.stamp"

up_to_date() {
  [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]] || return 1
  local b
  for b in "${binaries[@]}"; do [[ -x "$bin_dir/$b" ]] || return 1; done
}

if ! $force && up_to_date; then
  echo "cluster binaries up to date in $bin_dir (kubernetes $k8s_version, etcd $etcd_version, kwok $kwok_version)"
  exit 0
fi

mkdir -p "$bin_dir"
stage=$(mktemp -d "$bin_dir/.build.XXXXXX")
trap 'rm -rf "$stage"' EXIT
rm -f "$stamp_file"

started=$(date +%s)
ldflags="-s -w"
ldflags+=" -X k8s.io/component-base/version.gitVersion=$k8s_version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=$k8s_major"
ldflags+=" -X k8s.io/component-base/version.gitMinor=$k8s_minor"
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"

echo "building kubernetes $k8s_version (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl) into $bin_dir"
# -mod=readonly: the pinned go.mod/go.sum are used as they are, never silently updated.
go build -mod=readonly -trimpath -ldflags "$ldflags" -o "$stage/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl

echo "building etcd $etcd_version"
(cd etcd && go build -mod=readonly -trimpath -ldflags "-s -w" -o "$stage/etcd" go.etcd.io/etcd/server/v3)

echo "building kwok $kwok_version"
(cd kwok && go build -mod=readonly -trimpath -ldflags "-s -w" -o "$stage/kwok" sigs.k8s.io/kwok/cmd/kwok)

# Sanity: the servers must report the pinned version, or kubectl cannot parse it.
got=$("$stage/kubectl" version --client -o json | grep -o '"gitVersion": *"[^"]*"' | head -1 | sed 's/.*"\(v[^"]*\)"/\1/')
if [[ "$got" != "$k8s_version" ]]; then
  echo "build.sh: built kubectl reports version '$got', want $k8s_version" >&2
  exit 1
fi

for b in "${binaries[@]}"; do mv -f "$stage/$b" "$bin_dir/$b"; done
printf 'kubernetes %s\netcd %s\nkwok %s\n' "$k8s_version" "$etcd_version" "$kwok_version" >"$bin_dir/VERSIONS"
echo "$stamp" >"$stamp_file"
echo "cluster binaries built in $(( $(date +%s) - started ))s: $bin_dir"
