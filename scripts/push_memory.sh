#!/usr/bin/env bash
# A big first push and the server's memory: a store of N cards (one of 50 tags each, imported from
# a TSV file) signs in to a fresh `cardbox serve` (SQLite) and runs `cardbox sync`. Prints the
# sync's time, the bytes sent, the size of the server's database after it, the server's resident
# memory before it, its peak (the kernel's high-water mark) and its resident memory each 10 s for a
# minute after (issue 64's goal: peak <= 300 MB for 100,000 cards, back near the baseline within a
# minute).
#
#   bash scripts/push_memory.sh [--cards 100000] [--settle 60]
set -euo pipefail
cd "$(dirname "$0")/.."
cards=100000
settle=60
while [ $# -gt 0 ]; do
    case "$1" in
        --cards) cards=$2; shift 2 ;;
        --settle) settle=$2; shift 2 ;;
        *) echo "usage: $0 [--cards N] [--settle SECONDS]" >&2; exit 64 ;;
    esac
done
source scripts/bench_server.sh
build_release cardbox
work=$(mktemp -d /tmp/cardbox-push-memory.XXXXXX)
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
cardbox=.build/release/cardbox
database="$work/server.sqlite"
add_bench_user "$work" "$database"
start_server "$work" "$database"
# `cardbox serve` execs the server program: the pid is the server's.
resident_mb() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$server_pid/status"; }
store="$work/phone.sqlite"
python3 -c "import sys
sys.stdout.write('#separator:tab\\n#tags column:3\\n')
for i in range($cards): sys.stdout.write(f'front {i}\tback {i}\ttag{i % 50}\n')" >"$work/cards.tsv"
echo "importing $cards cards…" >&2
$cardbox --store "$store" plan set premium >/dev/null
$cardbox --store "$store" import "$work/cards.tsv" --deck Bench --front es --back en >/dev/null
$cardbox --store "$store" login "$url" --user bench --password-stdin <"$work/password" >/dev/null
before=$(resident_mb)
sent_before=$(curl -s "$url/metrics" | awk '/^cardbox_request_bytes/ {s += $NF} END {print s + 0}')
echo "syncing…" >&2
start=$(date +%s.%N)
$cardbox --store "$store" sync >/dev/null
end=$(date +%s.%N)
sent_after=$(curl -s "$url/metrics" | awk '/^cardbox_request_bytes/ {s += $NF} END {print s + 0}')
peak=$(server_peak_mb)
python3 -c "import sys; c, s, e, a, b = sys.argv[1:]
print(f'first push of {int(c):,} cards: {float(e) - float(s):.1f} s, {(float(a) - float(b)) / 1e6:.1f} MB sent')" \
    "$cards" "$start" "$end" "$sent_after" "$sent_before"
printf 'server resident memory: %s MB before, peak %.0f MB\n' "$before" "$peak"
echo "server database: $(du -cm "$database"* | tail -1 | cut -f1) MB (the file and its write-ahead log)"
settled=""
for second in $(seq 10 10 "$settle"); do
    sleep 10
    settled="$settled ${second}s $(resident_mb) MB;"
done
echo "after the push:$settled"
