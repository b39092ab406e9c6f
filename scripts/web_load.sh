#!/usr/bin/env bash
# The web app under load: 50 users (accounts); wrk with 50 connections, each request from the next
# user in turn, against one `cardbox serve` (release build, SQLite, loopback) on the deck page, the
# study answer endpoint and a board card move, beside the server's simplest route (/health,
# Hummingbird answering a constant: the hello-world of this server) in the same run. Reports
# requests per second, p50 and p99 latency, and each route's throughput as a share of
# hello-world's, and the server's CPU time (user + system, from /proc) per request. Goals: p99 <= 20 ms,
# throughput >= 30 % of hello-world (issue 9); <= 500 us of server CPU per study answer, p99 <= 50 ms (issue 64).
# The per-account request limit is raised for the run (requests without a pause go far beyond what
# a person does; the limit has tests of its own).
#
#   bash scripts/web_load.sh [--users 50] [--connections 50] [--seconds 15]
set -euo pipefail
cd "$(dirname "$0")/.."
connections=50
seconds=15
users=50
while [ $# -gt 0 ]; do
    case "$1" in
        --connections) connections=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --users) users=$2; shift 2 ;;
        *) echo "usage: $0 [--users N] [--connections N] [--seconds N]" >&2; exit 64 ;;
    esac
done
source scripts/bench_server.sh
bash scripts/install-deps.sh
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
build_release cardbox
work=$(mktemp -d /tmp/cardbox-web-load.XXXXXX)
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
echo "setting up $users users (premium: the cards are past the free plan's 25), each with a deck of 100 cards" \
    "and a board of two columns" >&2
for index in $(seq 0 $((users - 1))); do
    echo "bench-password" | .build/release/cardbox admin --database "$work/server.sqlite" user add "bench$index" \
        --plan premium --password-stdin >/dev/null
done
start_server "$work" "$work/server.sqlite" --rate-limit 1000000000
python3 scripts/web_load_setup.py "$url" "$work" "$users"

# The server's CPU time so far (user + system), in clock ticks.
server_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }

run() {
    local name=$1 path=$2 script=${3:-}
    echo "wrk: $name ($connections connections, ${seconds}s)" >&2
    local before
    before=$(server_ticks)
    wrk -t2 -c"$connections" -d"${seconds}s" --latency ${script:+-s "$work/$script"} "$url$path" >"$work/$name.wrk"
    echo $(($(server_ticks) - before)) >"$work/$name.ticks"
}
run hello /health
run deck-page / page.lua
run answer / answer.lua
run board-move / move.lua
server_peak=$(server_peak_mb)
python3 - "$work" "$connections" "$users" "$server_peak" "$(getconf CLK_TCK)" <<'PY'
import re, sys
work, connections, users, peak, ticks = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
def parse(name):
    text = open(f"{work}/{name}.wrk").read()
    def ms(label):
        value, unit = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket = re.search(r"Socket errors: (.*)", text)
    requests = int(re.search(r"^\s*(\d+) requests in", text, re.M).group(1))
    cpu = int(open(f"{work}/{name}.ticks").read()) / ticks / max(requests, 1) * 1e6
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)), "p50": ms(50), "p99": ms(99),
            "errors": int(errors.group(1)) if errors else 0, "socket": socket.group(1) if socket else "", "cpu": cpu}
hello = parse("hello")
print(f"web app under load: {users} users, {connections} connections, SQLite, loopback")
print(f"{'':34} {'req/s':>9} {'p50':>9} {'p99':>9} {'of hello':>9} {'CPU/req':>9} {'errors':>7}")
for name, label in (("hello", "hello-world (/health)"), ("deck-page", "deck page (GET, 50 of 100 cards)"),
                    ("answer", "study answer (POST /api/v1)"), ("board-move", "board card move (POST form)")):
    r = parse(name)
    share = r["rps"] / hello["rps"] * 100
    print(f"{label:34} {r['rps']:>9.0f} {r['p50']:>7.2f}ms {r['p99']:>7.2f}ms {share:>8.0f}% {r['cpu']:>7.0f}us"
          f" {r['errors']:>7}"
          + (f"  socket errors: {r['socket']}" if r["socket"] else ""))
print(f"server peak memory: {peak:.0f} MB")
PY
