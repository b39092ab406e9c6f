#!/usr/bin/env bash
# The sync benchmark, beside Anki's own sync server with the same number of cards:
# - the first sync of a collection to an empty device (Anki: a full download);
# - the incremental sync of one changed card, sent and received (Anki: a normal sync).
# Both servers run as their own processes on loopback; the clients run in process, so no
# process start-up is counted. Cardbox's server runs on SQLite, or on PostgreSQL with --postgres.
#
#   bash scripts/sync_bench.sh [--cards 5000] [--runs 20] [--postgres]
set -euo pipefail
cd "$(dirname "$0")/.."
cards=5000
runs=20
postgres=false
while [ $# -gt 0 ]; do
    case "$1" in
        --cards) cards=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --postgres) postgres=true; shift ;;
        *) echo "usage: $0 [--cards N] [--runs N] [--postgres]" >&2; exit 64 ;;
    esac
done
bash scripts/install-deps.sh
python3 -c "import anki" 2>/dev/null || pip install --quiet anki
swift build -c release --static-swift-stdlib --product cardbox >&2
swift build -c release --static-swift-stdlib --product cardbox-sync-bench >&2
work=$(mktemp -d /tmp/cardbox-sync-bench.XXXXXX)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
database="$work/server.sqlite"
$postgres && database=$(bash scripts/test-postgres.sh start $$)
echo "bench-password" >"$work/password"
.build/release/cardbox admin --database "$database" user add bench --plan premium --password-stdin <"$work/password" >/dev/null
.build/release/cardbox serve --port 0 --database "$database" >"$work/serve.out" 2>/dev/null &
server_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)
cardbox=$(.build/release/cardbox-sync-bench --server "$url" --user bench --password-file "$work/password" \
    --cards "$cards" --runs "$runs" --work "$work")
server_peak=$(awk '/VmHWM/ {print $2 / 1024}' "/proc/$server_pid/status")
bytes_out=$(curl -s "$url/metrics" | awk '/^cardbox_response_bytes_total/ {print $2}')
anki=$(python3 scripts/anki_sync_bench.py "$cards" "$runs")
python3 - "$cardbox" "$anki" "$server_peak" "${bytes_out:-0}" "$database" <<'PY'
import json, sys
c, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
server_peak, bytes_out, database = float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
kind = "PostgreSQL" if database.startswith("postgres") else "SQLite"
print(f"sync of {c['cards']:,} cards; Cardbox server on {kind}; medians of the incremental runs")
print(f"{'':44} {'Cardbox':>10} {'Anki':>10} {'ratio':>7}")
def row(label, ours, theirs):
    print(f"{label:44} {ours:>8.1f}ms {theirs:>8.1f}ms {ours / theirs:>7.2f}")
row("first sync to an empty device (Anki: full download)", c["firstSyncToEmptyDeviceMs"], a["fullDownloadMs"])
row("first upload of the collection (Anki: full upload)", c["firstUploadMs"], a["fullUploadMs"])
row("one changed card, sent", c["incrementalSendMs"], a["incrementalSendMs"])
row("one changed card, received", c["incrementalReceiveMs"], a["incrementalReceiveMs"])
print(f"Cardbox client peak {c['clientPeakMB']:.0f} MB, server peak {server_peak:.0f} MB, "
      f"{bytes_out / 1e6:.1f} MB sent by the server in all")
PY
