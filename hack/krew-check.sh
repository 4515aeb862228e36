#!/usr/bin/env bash
# What a krew-index reviewer rejects beyond krew's validate-krew-manifest, checked on the krew
# manifest goreleaser renders (its krews section, from krew/*.txt and the archives of dist/):
#
#   hack/krew-check.sh MANIFEST [COMMITTED]
#
# The short description is one line of 1 to 50 characters; the description and caveats fit 80
# columns, the description holds no usage example, the caveats say how to install completion;
# there is one platform per os/arch built into MANIFEST's dist directory (every release os/arch
# in COMMITTED), each with a sha256, its own archive and the bin kubectl-indexed(.exe). With
# COMMITTED, the committed manifest is MANIFEST but for the version, URIs and digests of a build,
# on the platforms built (make krew-manifest refreshes it).
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
# platforms MANIFEST: one line per platform, os/arch bin uri (goreleaser starts each platform
# with "- bin:").
platforms() {
  awk '
  function flush() { if (os != "") print os "/" arch, bin, uri; os = arch = bin = uri = "" }
  /^ *- bin: / { flush(); bin = $3 }
  /^ *uri: / { uri = $2 }
  /^ *os: / { os = $2 }
  /^ *arch: / { arch = $2 }
  END { flush() }' "$1"
}
# check_platforms MANIFEST OS/ARCH...: exactly these platforms, each with a sha256, the URI of
# its own archive and the bin kubectl-indexed(.exe).
check_platforms() {
  local m=$1 list p os arch ext line bin uri
  shift
  list=$(platforms "$m")
  [[ $(grep -c 'sha256: [0-9a-f]\{64\}$' "$m") == $# ]] || bad "$m: want $# platforms with a sha256"
  [[ $(grep -c . <<<"$list") == $# ]] || bad "$m: want the platforms $*, has: $(cut -d' ' -f1 <<<"$list" | tr '\n' ' ')"
  for p in "$@"; do
    os=${p%/*} arch=${p#*/} ext=
    [[ $os == windows ]] && ext=.exe
    line=$(grep "^$p " <<<"$list" || true)
    [[ $(grep -c . <<<"$line") == 1 ]] || { bad "$m: want one platform $p"; continue; }
    read -r _ bin uri <<<"$line"
    [[ $bin == "kubectl-indexed$ext" ]] || bad "$m: $p has bin $bin, want kubectl-indexed$ext"
    [[ $uri =~ ^https://.*_${os}_${arch}\.(tar\.gz|zip)$ ]] || bad "$m: $p has uri $uri, not the https URI of its archive"
  done
}
release=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
# The platforms goreleaser built (make dist-host builds one, make dist every one): its archives.
built=()
for p in "${release[@]}"; do
  for a in "$(dirname "$(dirname "$manifest")")"/kubectl-indexed_*_"${p%/*}_${p#*/}".{tar.gz,zip}; do
    [[ -e $a ]] && built+=("$p")
  done
done
[[ ${#built[@]} -gt 0 ]] || bad "$manifest: no archive of a release platform next to it"
check_platforms "$manifest" "${built[@]}"
[[ -z $committed ]] || check_platforms "$committed" "${release[@]}"

if [[ -n $committed ]]; then
  # strip MANIFEST [OS/ARCH...]: without what a build changes, and with only the platforms given.
  strip() {
    local m=$1
    shift
    grep -vE '^#|^ *(version|uri|sha256): ' "$m" | awk -v keep="$*" '
      function flush() { if (block != "" && index(" " keep " ", " " os "/" arch " ")) printf "%s", block; block = "" }
      /^    - bin: / { flush(); inblock = 1 }
      inblock && /^  [^ ]/ { flush(); inblock = 0 }
      inblock { block = block $0 "\n"; if ($1 == "os:") os = $2; if ($1 == "arch:") arch = $2; next }
      { print }
      END { flush() }'
  }
  if ! diff <(strip "$committed" "${built[@]}") <(strip "$manifest" "${built[@]}") >&2; then
    bad "$committed is not goreleaser's manifest (above): run make krew-manifest and commit it"
  fi
fi
if [[ $fail != 0 ]]; then
  exit 1
fi
echo "krew-check: $manifest follows krew-index's rules${committed:+; $committed is up to date}"
