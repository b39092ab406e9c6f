#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the tests, on loopback, and prints its URL.
#
#   bash scripts/test-postgres.sh start OWNER_PID [--durable]   # prints postgres://cardbox@127.0.0.1:PORT/postgres
#
# The server lives in a new temporary folder and stops by itself once the process OWNER_PID has
# ended (the test run that asked for it), however that process ends; the folder goes with it.
# Durability is off (fsync, full_page_writes, synchronous_commit): the tests check behaviour, not
# crash safety of the disk. The benchmarks ask for --durable: PostgreSQL's own defaults, a commit
# flushed to the disk before it is answered, as the SQLite server's are and as a real server runs.
# Autovacuum looks every second (not every minute): the benchmarks fill tables in seconds, and the
# server's prepared statements keep generic plans, made from the statistics autovacuum's ANALYZE
# keeps (see PostgresServerDatabase.configuration); a long-running server has them within a minute.
set -euo pipefail
[ "${1:-}" = start ] && [ -n "${2:-}" ] || { echo "usage: $0 start OWNER_PID [--durable]" >&2; exit 2; }
owner=$2
durability="-c fsync=off -c full_page_writes=off -c synchronous_commit=off"
[ "${3:-}" = --durable ] && durability=""
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/postgres" ] || { echo "error: PostgreSQL is not installed (bash scripts/install-deps.sh installs it)" >&2; exit 1; }
dir=$(mktemp -d /tmp/cardbox-postgres.XXXXXX)
# PostgreSQL refuses to run as root: as root, the server runs as the postgres user the package made.
as_server=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$dir"
    as_server=(runuser -u postgres --)
fi
"${as_server[@]}" "$bin/initdb" -D "$dir/data" -U cardbox -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
    "-h 127.0.0.1 -p $port -k $dir $durability -c max_connections=200 -c autovacuum_naptime=1" \
    >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
# The watchdog: stops the server and removes its folder once the owner has gone.
(
    while kill -0 "$owner" 2>/dev/null; do sleep 1; done
    "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
) </dev/null >/dev/null 2>&1 &
disown
echo "postgres://cardbox@127.0.0.1:$port/postgres"
