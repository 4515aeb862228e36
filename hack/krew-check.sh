#!/usr/bin/env bash
# What a krew-index reviewer rejects beyond krew's validate-krew-manifest, checked on the krew
# manifest goreleaser renders (its krews section, from krew/*.txt and the archives of dist/):
#
#   hack/krew-check.sh MANIFEST [COMMITTED]
#
# The short description is one line of 1 to 50 characters; the description and caveats fit 80
# columns, the description holds no usage example, the caveats say how to install completion;
# there is one platform per release os/arch, each with a sha256, its own archive and the bin
# kubectl-indexed(.exe). With COMMITTED, the committed manifest is MANIFEST but for the version,
# URIs and digests of a build (make krew-manifest refreshes it).
set -euo pipefail
manifest=$1 committed=${2:-}
cd "$(dirname "$0")/.."
fail=0
bad() { echo "krew-check: $*" >&2; fail=1; }

short=$(cat krew/short-description.txt)
n=$(printf %s "$short" | wc -m)
[[ $short != *$'\n'* && $n -ge 1 && $n -le 50 ]] || bad "krew/short-description.txt: must be one line of 1 to 50 characters (has $n)"
for f in krew/description.txt krew/caveats.txt; do
  while IFS=: read -r line len; do
    bad "$f line $line is $len columns wide (at most 80)"
  done < <(awk '{ n = length($0) } n > 80 { print FNR ":" n }' "$f")
done
# A usage example: a shell prompt, a quote, a code fence, or an indented kubectl command.
if grep -nE '^([[:space:]]*(\$ |> |```)|[[:space:]]{2,}kubectl )' krew/description.txt >&2; then
  bad "krew/description.txt holds a usage example (krew-index wants none)"
fi
grep -q 'kubectl_complete-indexed' krew/caveats.txt || bad "krew/caveats.txt must say how to install completion (kubectl_complete-indexed)"

[[ $(sed -n 's/^  name: //p; s/^kind: //p' "$manifest" | tr '\n' ' ') == "Plugin indexed " ]] || bad "$manifest: want kind Plugin named indexed"
[[ $(grep -c 'sha256: [0-9a-f]\{64\}$' "$manifest") == 6 ]] || bad "$manifest: want 6 platforms with a sha256"
# One line per platform: os/arch bin uri (goreleaser starts each platform with "- bin:").
platforms=$(awk '
  function flush() { if (os != "") print os "/" arch, bin, uri; os = arch = bin = uri = "" }
  /^ *- bin: / { flush(); bin = $3 }
  /^ *uri: / { uri = $2 }
  /^ *os: / { os = $2 }
  /^ *arch: / { arch = $2 }
  END { flush() }' "$manifest")
for p in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  os=${p%/*} arch=${p#*/} ext=
  [[ $os == windows ]] && ext=.exe
  line=$(grep "^$p " <<<"$platforms" || true)
  [[ $(grep -c . <<<"$line") == 1 ]] || { bad "$manifest: want one platform $p"; continue; }
  read -r _ bin uri <<<"$line"
  [[ $bin == "kubectl-indexed$ext" ]] || bad "$manifest: $p has bin $bin, want kubectl-indexed$ext"
  [[ $uri =~ ^https://.*_${os}_${arch}\.(tar\.gz|zip)$ ]] || bad "$manifest: $p has uri $uri, not the https URI of its archive"
done

if [[ -n $committed ]]; then
  strip() { grep -vE '^#|^ *(version|uri|sha256): ' "$1"; }
  if ! diff <(strip "$committed") <(strip "$manifest") >&2; then
    bad "$committed is not goreleaser's manifest (above): run make krew-manifest and commit it"
  fi
fi
if [[ $fail != 0 ]]; then
  exit 1
fi
echo "krew-check: $manifest follows krew-index's rules${committed:+; $committed is up to date}"
