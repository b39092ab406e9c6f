#!/usr/bin/env bash
# Whole processes, timed by hyperfine (start-up, the work, exit), beside a Foundation hello-world built
# with the same flags as cardbox (release, Swift runtime and Foundation linked in), and one linked to
# them dynamically (the figure issue 32's goal was set against):
# - `cardbox --version` and `cardbox plan show` on a store with a deck of 100 cards (goal: <= 1.5 x
#   hello-world);
# - with --server URL --password-file FILE (a running `cardbox serve` whose user `bench` holds the
#   account; scripts/sync_bench.sh passes them): `cardbox sync` of one changed card (goal: <= 15 ms),
#   and a new device's first `cardbox sync` of the account (beside Anki's full download, which
#   sync_bench.sh prints).
# Prints one row per command: mean ± σ and the ratio to the static hello-world.
#
#   bash scripts/process_bench.sh [--runs 30] [--server URL --password-file FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=30
server=""
password_file=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --server) server=$2; shift 2 ;;
        --password-file) password_file=$2; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--server URL --password-file FILE]" >&2; exit 64 ;;
    esac
done
command -v hyperfine >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
}
cardbox=$(pwd)/.build/release/cardbox
[ -x "$cardbox" ] || swift build -c release --static-swift-stdlib --product cardbox >&2
work=$(mktemp -d /tmp/cardbox-process-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The peer: Foundation loaded and used, so static linking keeps it.
cat >"$work/hello.swift" <<'SWIFT'
import Foundation

print("hello, world \(Date().timeIntervalSince1970 > 0)")
SWIFT
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null
swiftc -O "$work/hello.swift" -o "$work/hello-dynamic" 2>/dev/null

store="$work/store.sqlite"
"$cardbox" --store "$store" plan set premium >/dev/null
"$cardbox" --store "$store" deck create Spanish --front es --back en >/dev/null
for index in $(seq 100); do printf 'palabra %d\tword %d\n' "$index" "$index"; done >"$work/cards.tsv"
"$cardbox" --store "$store" import "$work/cards.tsv" --deck Spanish --front es >/dev/null

time_command() {  # NAME RUNS COMMAND [hyperfine options…]: appends "NAME mean stddev" (ms) to rows
    local name=$1 count=$2 command=$3
    shift 3
    hyperfine --style none --warmup 3 --runs "$count" --export-json "$work/run.json" "$@" "$command" >/dev/null
    python3 - "$name" "$work/run.json" >>"$work/rows" <<'PY'
import json, sys
result = json.load(open(sys.argv[2]))["results"][0]
print(f"{sys.argv[1]}\t{result['mean'] * 1000:.2f}\t{result['stddev'] * 1000:.2f}")
PY
}

: >"$work/rows"
echo "timing whole processes ($runs runs each)…" >&2
# -N: no shell between hyperfine and a command that needs none (its start-up would blur a 2 ms process).
time_command "Foundation hello-world, static (peer)" "$runs" "$work/hello" -N
time_command "Foundation hello-world, dynamic (peer)" "$runs" "$work/hello-dynamic" -N
time_command "cardbox --version" "$runs" "$cardbox --version" -N
time_command "cardbox plan show" "$runs" "$cardbox --store $store plan show" -N
if [ -n "$server" ]; then
    device="$work/device.sqlite"
    "$cardbox" --store "$device" login "$server" --user bench --password-stdin --device bench-process \
        <"$password_file" >/dev/null
    "$cardbox" --store "$device" sync >/dev/null
    card=$("$cardbox" --store "$device" card list --json --limit 1 |
        python3 -c "import json, sys; print(json.load(sys.stdin)[0]['id'])")
    time_command "cardbox sync, one changed card" "$runs" "$cardbox --store $device sync" \
        --prepare "$cardbox --store $device card edit $card --back \"changed \$RANDOM\""
    fresh="$work/fresh.sqlite"
    # A few runs, each a whole download; two at least, for a spread (hyperfine gives none for one).
    first_runs=$(((runs + 5) / 6))
    [ "$first_runs" -ge 2 ] || first_runs=2
    time_command "cardbox sync, a new device's first" "$first_runs" "$cardbox --store $fresh sync" \
        --prepare "rm -f $fresh $fresh-wal $fresh-shm; $cardbox --store $fresh login $server --user bench --password-stdin --device fresh <$password_file"
fi
python3 - "$work/rows" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
hello = float(rows[0][1])
print("whole processes (hyperfine: start-up, the work, exit)")
print(f"{'':46} {'mean':>9} {'±':>7} {'x hello':>8}")
for name, mean, spread in rows:
    print(f"{name:46} {float(mean):>7.1f}ms {float(spread):>5.1f}ms {float(mean) / hello:>8.2f}")
PY
