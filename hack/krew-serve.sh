#!/usr/bin/env bash
# Runs krew's validate-krew-manifest on goreleaser's krew manifest with its download URIs
# pointed at dist/ served on 127.0.0.1, so that it installs every platform's archive as
# krew-index's CI does with a release's URIs:
#
#   hack/krew-serve.sh DIST VALIDATE-KREW-MANIFEST
set -euo pipefail
dist=$(realpath "$1") validate=$2
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
(cd "$dist" && exec python3 -u -m http.server 0 --bind 127.0.0.1) >"$work/server.log" 2>&1 &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log" | head -1)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "krew-serve: the file server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
mkdir "$work/plugins"
sed -E "s#(uri: )https://[^ ]*/#\1http://127.0.0.1:$port/#" "$dist/krew/indexed.yaml" >"$work/plugins/indexed.yaml"
"$validate" -manifest "$work/plugins/indexed.yaml"
