#!/usr/bin/env bash
# The sync benchmark, beside Anki's own sync server with the same number of cards:
# - the first sync of a collection to an empty device (Anki: a full download): right after the
#   upload, beside Anki's first download after its upload (both cold in their processes) and
#   beside Anki's median, and the median of five later devices (Anki: the median of five);
# - the incremental sync of one changed card, sent and received (Anki: a normal sync);
# - whole `cardbox sync` processes (scripts/process_bench.sh): one changed card, and a new device's first.
# Both servers run as their own processes on loopback; the clients run in process, so no
# process start-up is counted. Cardbox's server runs on SQLite, or on PostgreSQL with --postgres.
# Cardbox's bytes on the wire come from the server's /metrics; peak memory from the kernel.
#
#   bash scripts/sync_bench.sh [--cards 5000] [--runs 20] [--postgres]
#   bash scripts/sync_bench.sh --cards 100000 --runs 3     # the first sync of 100,000 cards
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
source scripts/bench_server.sh
bash scripts/install-deps.sh
python3 -c "import anki" 2>/dev/null || pip install --quiet anki
build_release cardbox cardbox-sync-bench
work=$(mktemp -d /tmp/cardbox-sync-bench.XXXXXX)
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
database="$work/server.sqlite"
$postgres && database=$(bash scripts/test-postgres.sh start $$ --durable)
add_bench_user "$work" "$database"
start_server "$work" "$database"
cardbox=$(.build/release/cardbox-sync-bench first --server "$url" --user bench --password-file "$work/password" \
    --cards "$cards" --runs "$runs" --work "$work")
server_peak=$(server_peak_mb)
processes=$(bash scripts/process_bench.sh --runs "$runs" --server "$url" --password-file "$work/password")
stop_server
anki=$(python3 scripts/anki_sync_bench.py "$cards" "$runs")
python3 - "$cardbox" "$anki" "$server_peak" "$database" <<'PY'
import json, sys
c, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
server_peak, database = float(sys.argv[3]), sys.argv[4]
kind = "PostgreSQL" if database.startswith("postgres") else "SQLite"
print(f"sync of {c['cards']:,} cards; Cardbox server on {kind}; medians of the incremental runs")
print(f"{'':44} {'Cardbox':>10} {'Anki':>10} {'ratio':>7}")
def row(label, ours, theirs):
    print(f"{label:44} {ours:>8.1f}ms {theirs:>8.1f}ms {ours / theirs:>7.2f}")
# Right after the upload: each side's first download in its process (cold paths and all), and
# beside Anki's median; later devices: the median of five on each side.
print("first sync of the collection to an empty device (Anki: a full download)")
row("  right after the upload (Anki: its first)", c["firstSyncToEmptyDeviceMs"], a["fullDownloadsMs"][0])
row("  the same, beside Anki's median", c["firstSyncToEmptyDeviceMs"], a["fullDownloadMs"])
row("  later devices, median of five" + (" (snapshot)" if c["snapshot"] else ""), c["laterFirstSyncMs"],
    a["fullDownloadMs"])
row("first upload of the collection (Anki: full upload)", c["firstUploadMs"], a["fullUploadMs"])
row("one changed card, sent", c["incrementalSendMs"], a["incrementalSendMs"])
row("one changed card, received", c["incrementalReceiveMs"], a["incrementalReceiveMs"])
spread = lambda values: ", ".join(f"{v:.1f}" for v in sorted(values))
print(f"first syncs of the later devices: Cardbox {spread(c['laterFirstSyncsMs'])} ms; "
      f"Anki's full downloads: {spread(a['fullDownloadsMs'])} ms")
print(f"bytes on the wire: first upload {c['firstUploadBytes'] / 1e6:.1f} MB sent, "
      f"first sync to an empty device {c['firstSyncToEmptyDeviceBytes'] / 1e6:.1f} MB received")
print(f"peak memory: Cardbox server {server_peak:.0f} MB; the client process (every device's store, and the "
      f"bench's own checks) {c['clientPeakMB']:.0f} MB; during the upload {c['uploadPeakMB']:.0f} MB "
      f"({c['uploadStartMB']:.0f} MB at its start), during the first sync {c['downloadPeakMB']:.0f} MB "
      f"({c['downloadStartMB']:.0f} MB at its start)")
PY
echo
echo "$processes"
