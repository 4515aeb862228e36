#!/usr/bin/env bash
# Installs kubectl indexed as a user would with krew, from the archive of a goreleaser build,
# into a throwaway KREW_ROOT and HOME, and runs it through kubectl:
#
#   hack/krew-smoke.sh KREW MANIFEST DIST KUBECTL_DIR
#
#   KREW         a krew binary (built from sigs.k8s.io/krew; installed here as kubectl-krew)
#   MANIFEST     goreleaser's krew manifest of DIST (its sha256 values are DIST's archives')
#   DIST         goreleaser's dist directory
#   KUBECTL_DIR  a directory holding kubectl (>= 1.26, for plugin completion)
#
# It checks: krew installs the archive; `kubectl indexed version` prints the manifest's
# version and this checkout's commit; the completion step of the manifest's caveats, run as
# written, makes `kubectl indexed <TAB>` complete. (Not `krew uninstall`: it wants krew's
# index, which is a git clone from the network.)
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 KREW MANIFEST DIST KUBECTL_DIR" >&2
  exit 2
fi
krew=$(realpath "$1") manifest=$(realpath "$2") dist=$(realpath "$3") kubectl_dir=$(realpath "$4")
repo=$(cd "$(dirname "$0")/.." && pwd)

goos=$(go env GOOS) goarch=$(go env GOARCH)
shopt -s nullglob
archives=("$dist"/kubectl-indexed_*_"${goos}_${goarch}".tar.gz)
if [[ ${#archives[@]} -ne 1 ]]; then
  echo "krew-smoke: want one ${goos}_${goarch} archive in $dist, found ${#archives[@]}" >&2
  exit 1
fi
archive=${archives[0]}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tools" "$work/home"
cp "$krew" "$work/tools/kubectl-krew"
export HOME="$work/home" KREW_ROOT="$work/krew" KREW_NO_UPGRADE_CHECK=1
# Nothing from the caller's PATH that could hold another kubectl-indexed or kubectl.
export PATH="$KREW_ROOT/bin:$work/tools:$kubectl_dir:/usr/local/bin:/usr/bin:/bin"
unset KUBECONFIG

fail() {
  echo "krew-smoke: FAIL: $*" >&2
  exit 1
}
step() { echo "krew-smoke: \$ $*" >&2; }

step kubectl krew install --manifest="$manifest" --archive="$archive"
kubectl krew install --manifest="$manifest" --archive="$archive" </dev/null

step kubectl plugin list
plugins=$(kubectl plugin list 2>&1) || true
echo "$plugins"
grep -qx "$KREW_ROOT/bin/kubectl-indexed" <<<"$plugins" || fail "kubectl does not find krew's kubectl-indexed"

want_version=$(sed -n 's/^  version: //p' "$manifest")
want_commit=$(git -C "$repo" rev-parse HEAD | cut -c1-12)
step kubectl indexed version
got=$(kubectl indexed version)
echo "$got"
[[ $got == "kubectl-indexed $want_version (commit $want_commit, built "* ]] ||
  fail "kubectl indexed version printed \"$got\", want version $want_version and commit $want_commit"
got=$(kubectl indexed version -o json)
grep -q "\"platform\": \"$goos/$goarch\"" <<<"$got" || fail "version -o json: $got"

# The caveats' completion step, exactly as the manifest writes it (the cp command and its
# continuation line).
caveat=$(awk '/^ +cp /{on=1} on{sub(/^ +/, ""); print; if ($0 !~ /\\$/) exit}' "$manifest")
[[ -n $caveat ]] || fail "no cp command in the manifest's caveats"
step "$caveat"
bash -c "$caveat"
step kubectl __complete indexed ""
got=$(kubectl __complete indexed "" 2>/dev/null)
echo "$got"
for verb in version completion; do
  grep -q "^$verb"$'\t' <<<"$got" || fail "kubectl indexed <TAB> does not offer $verb"
done
step kubectl __complete indexed version -o ""
got=$(kubectl __complete indexed version -o "" 2>/dev/null)
# The output contract's formats (pkg/output): json and yaml first, then the templates.
[[ $got == $'json\nyaml\n'* ]] && grep -qx 'jsonpath=' <<<"$got" ||
  fail "kubectl indexed version -o <TAB> offered \"$got\""

echo "krew-smoke: ok: installed $(basename "$archive") with krew, ran kubectl indexed $want_version, completed kubectl indexed <TAB>"
