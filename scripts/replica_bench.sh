#!/usr/bin/env bash
# What a browser downloads to work offline (every address the service worker keeps, raw and
# gzipped), then the browser's replica under Node, on accounts of several shapes (lists × items): how long it
# takes to merge the account (the first pull), keep it (`saved`, each write's save to IndexedDB),
# read it back (`restore`, each page load), draw the lists page and a list, and add an item; then
# decks of cards with their review logs: the same, the study screen, and an answer.
# The module and the schema are those `cardbox serve` hands a browser (the module is built the
# same in debug and release, so the debug build serves it).
#
#   bash scripts/replica_bench.sh [--runs 3]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        *) echo "usage: $0 [--runs N]" >&2; exit 64 ;;
    esac
done
swift build --product cardbox >&2
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$(swift build --show-bin-path)/cardbox" serve --port 0 --database "$work/server.sqlite" >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)
[ -n "$url" ] || { echo "cardbox serve did not start" >&2; exit 1; }
page=$(curl -fsS "$url/offline/lists")
device=$(grep -o '/static/device-[0-9a-f]*\.js' <<<"$page" | head -1)
replica=$(grep -o '/static/replica-[0-9a-f]*\.js' <<<"$page" | head -1)
curl -fsS "$url$device" | head -1 | sed 's/^self.cardboxReplicaSetup = //; s/;$//' >"$work/setup.json"
module=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["module"])' "$work/setup.json")
curl -fsS "$url$replica" -o "$work/replica.js"
curl -fsS "$url$module" -o "$work/replica.wasm"
# What a phone downloads to work offline: every address the service worker keeps, raw and gzipped.
curl -fsS "$url/service-worker.js" | head -1 | sed 's/^self.cardboxShell = //; s/;$//' >"$work/shell.json"
python3 - "$url" "$work/shell.json" <<'PY'
import gzip, json, sys, urllib.request
url, shell = sys.argv[1], json.load(open(sys.argv[2]))
total = [0, 0]
print("offline shell: address | bytes | gzipped")
for path in shell["paths"]:
    body = urllib.request.urlopen(url + path).read()
    sizes = (len(body), len(gzip.compress(body, 9)))
    total = [total[0] + sizes[0], total[1] + sizes[1]]
    print(f"  {path} | {sizes[0]:,} | {sizes[1]:,}")
print(f"  all | {total[0]:,} | {total[1]:,}")
PY
node Tests/Wasm/replica_bench.cjs "$work/replica.js" "$work/replica.wasm" "$work/setup.json" "$runs"
