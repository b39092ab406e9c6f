#!/usr/bin/env bash
# The sync load benchmark: 100 devices (two per account) syncing against one `cardbox serve` for
# 60 s, each editing a card and syncing again as soon as a sync ends; on SQLite, then on
# PostgreSQL. Reports syncs and requests per second, sync latency p50/p99 and errors.
# The devices run in one process beside the server, on the same machine's cores. The
# per-account request limit is raised for the run: devices that sync without a pause go far
# beyond what a person's devices do (the limit has tests of its own).
#
#   bash scripts/sync_load.sh [--clients 100] [--seconds 60] [--only sqlite|postgres]
set -euo pipefail
cd "$(dirname "$0")/.."
clients=100
seconds=60
kinds="sqlite postgres"
while [ $# -gt 0 ]; do
    case "$1" in
        --clients) clients=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --only) kinds=$2; shift 2 ;;
        *) echo "usage: $0 [--clients N] [--seconds N] [--only sqlite|postgres]" >&2; exit 64 ;;
    esac
done
source scripts/bench_server.sh
bash scripts/install-deps.sh
build_release cardbox cardbox-sync-bench
work=$(mktemp -d /tmp/cardbox-sync-load.XXXXXX)
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
results=()
for kind in $kinds; do
    case "$kind" in
        sqlite) database="$work/server.sqlite" ;;
        postgres) database=$(bash scripts/test-postgres.sh start $$ --durable) ;;
        *) echo "--only takes sqlite or postgres" >&2; exit 64 ;;
    esac
    start_server "$work" "$database" --open-signup --rate-limit 100000
    echo "$kind: $clients devices for $seconds s" >&2
    result=$(.build/release/cardbox-sync-bench load --server "$url" --clients "$clients" --seconds "$seconds")
    results+=("$kind" "$result" "$(server_peak_mb)")
    stop_server
done
python3 - "${results[@]}" <<'PY'
import json, sys
args = sys.argv[1:]
print(f"{'server':10} {'devices':>7} {'syncs/s':>8} {'requests/s':>10} {'p50':>8} {'p99':>8} {'errors':>6} {'peak':>7}")
for kind, result, peak in zip(args[0::3], args[1::3], args[2::3]):
    r = json.loads(result)
    print(f"{kind:10} {r['clients']:>7} {r['syncsPerSecond']:>8.0f} {r['requestsPerSecond']:>10.0f} "
          f"{r['syncP50Ms']:>6.1f}ms {r['syncP99Ms']:>6.1f}ms {r['errors']:>6} {float(peak):>5.0f}MB")
    if r["errors"]:
        print(f"  first error: {r['firstError']}")
PY
