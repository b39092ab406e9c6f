# Shared by the sync benchmarks (source it): release builds, and a `cardbox serve` of its own on
# loopback, on a database, with its peak memory read before it stops.

# Builds the products named, in release mode, as the benchmarks run them.
build_release() {
    for product in "$@" cardbox-image-worker cardbox-server; do
        swift build -c release --static-swift-stdlib --product "$product" >&2
    done
}

# add_bench_user WORK DATABASE: the premium account `bench` the benchmarks sync to, its password in
# WORK/password.
add_bench_user() {
    local work=$1 database=$2
    echo "bench-password" >"$work/password"
    .build/release/cardbox admin --database "$database" user add bench --plan premium --password-stdin \
        <"$work/password" >/dev/null
}

# start_server WORK DATABASE [SERVE OPTIONS…]: sets server_pid and url.
start_server() {
    local work=$1 database=$2
    shift 2
    .build/release/cardbox serve --port 0 --database "$database" "$@" >"$work/serve.out" 2>/dev/null &
    server_pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
    url=$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)
    [ -n "$url" ] || { echo "cardbox serve did not start" >&2; return 1; }
}

# The server's peak resident memory so far, in MB.
server_peak_mb() { awk '/VmHWM/ {print $2 / 1024}' "/proc/$server_pid/status"; }

stop_server() {
    if [ -n "${server_pid:-}" ]; then
        kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
