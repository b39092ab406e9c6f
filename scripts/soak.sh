#!/usr/bin/env bash
# The soak run: one `cardbox serve` on SQLite, many accounts touched by web writes and sync pulls
# for a while (default 2,000 accounts, 10 minutes). Prints the server's resident memory and open
# files every 30 s (they must level off: each account's copy is let go past 64 in use), then
# checks that every acknowledged write is in the sync state. Passwords use bcrypt's lowest cost
# here, so making and signing in 2,000 accounts takes seconds, not minutes.
#
#   bash scripts/soak.sh [--accounts 2000] [--minutes 10] [--workers 16] [--debug]
set -euo pipefail
cd "$(dirname "$0")/.."
accounts=2000
minutes=10
workers=16
build=release
while [ $# -gt 0 ]; do
    case "$1" in
        --accounts) accounts=$2; shift 2 ;;
        --minutes) minutes=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --debug) build=debug; shift ;;
        *) echo "usage: $0 [--accounts N] [--minutes M] [--workers N] [--debug]" >&2; exit 64 ;;
    esac
done
bash scripts/install-deps.sh
if [ "$build" = release ]; then
    swift build -c release --product cardbox >&2
    swift build -c release --product cardbox-image-worker >&2
    swift build -c release --product cardbox-server >&2
else
    swift build --product cardbox >&2
    swift build --product cardbox-image-worker >&2
    swift build --product cardbox-server >&2
fi
bin=".build/$build/cardbox"
work=$(mktemp -d /tmp/cardbox-soak.XXXXXX)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$bin" serve --port 0 --database "$work/server.sqlite" --open-signup --password-cost 4 --rate-limit 100000 \
    --suggestions off >"$work/serve.out" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)
[ -n "$url" ] || { echo "error: cardbox serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
python3 scripts/soak.py "$url" "$server_pid" --accounts "$accounts" --minutes "$minutes" --workers "$workers"
