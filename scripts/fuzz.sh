#!/usr/bin/env bash
# Fuzzes every decoder that reads what people and other devices hand to Cardbox (ListAll JSON, backups,
# CSV/TSV, Trello boards, Anki packages, review lines, ISO times, position keys, format detection) with
# libFuzzer and AddressSanitizer. Each target starts from a copy of Fuzz/corpus/TARGET and of
# Fuzz/regressions/TARGET in a temporary folder: the repository is written only when an input crashes,
# saved as Fuzz/regressions/TARGET/crash-… (the test suite replays that folder).
#
# Usage: bash scripts/fuzz.sh [--runs N] [--jobs J] [TARGET...]
#   --runs N   inputs to try per target beyond its seeds (default 10000)
#   --jobs J   targets fuzzed at once (default 1)
#   TARGET     default: every target, i.e. every folder of Fuzz/corpus
# Prints one line per target (`TARGET: N executions, no crash` or `TARGET: CRASH (artifact: PATH)`), then
# `fuzz: N passed, M failed`; exits non-zero when a target crashed or a sanitizer reported an error.
#
# Leaks: LeakSanitizer runs where it can (it needs ptrace, which some containers forbid: then it is turned
# off, with a note). ASAN_OPTIONS from the environment is kept; detect_leaks=0 or =1 in it decides.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '8,13s/^# \{0,1\}//p' "$0"; }
runs=10000
jobs=1
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
        --runs=*) runs="${1#--runs=}"; shift ;;
        --jobs) jobs="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
        --jobs=*) jobs="${1#--jobs=}"; shift ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "error: unknown option '$1'" >&2; usage >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[[ "$runs" =~ ^[0-9]+$ ]] || { echo "error: --runs takes a number, got '$runs'" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "error: --jobs takes a number from 1, got '$jobs'" >&2; exit 2; }

known=()
for folder in Fuzz/corpus/*/; do known+=("$(basename "$folder")"); done
[ ${#targets[@]} -gt 0 ] || targets=("${known[@]}")
for target in "${targets[@]}"; do
    if [ ! -d "Fuzz/corpus/$target" ]; then
        echo "error: unknown target '$target' (targets: ${known[*]})" >&2
        exit 2
    fi
done

bash scripts/install-deps.sh
build=(swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
    -Xswiftc -parse-as-library)
echo "fuzz: building cardbox-fuzz with libFuzzer and AddressSanitizer (debug, in .build-fuzz)" >&2
"${build[@]}" --product cardbox-fuzz >&2
fuzzer="$("${build[@]}" --show-bin-path 2>/dev/null || true)/cardbox-fuzz"
[ -x "$fuzzer" ] || fuzzer=.build-fuzz/debug/cardbox-fuzz

work="$(mktemp -d "${TMPDIR:-/tmp}/cardbox-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Leak detection: kept as ASAN_OPTIONS says; else on if LeakSanitizer works here (tried on one empty input).
if [[ ":${ASAN_OPTIONS:-}:" != *:detect_leaks=* ]]; then
    : >"$work/empty"
    leaks=1
    if ! ASAN_OPTIONS=detect_leaks=1 CARDBOX_FUZZ_TARGET=isotime TMPDIR="$work" "$fuzzer" "$work/empty" \
        >"$work/leak-probe.log" 2>&1; then
        leaks=0
        if grep -q "LeakSanitizer has encountered a fatal error\|LeakSanitizer does not work" "$work/leak-probe.log"; then
            echo "fuzz: LeakSanitizer cannot run here (ptrace is restricted); leak detection is off" >&2
        else
            echo "fuzz: the leak check failed on an empty input; leak detection is off. Its output:" >&2
            tail -n 20 "$work/leak-probe.log" >&2
        fi
    fi
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$leaks"
fi
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/Fuzz/lsan-suppressions.txt"
echo "fuzz: ASAN_OPTIONS=$ASAN_OPTIONS LSAN_OPTIONS=$LSAN_OPTIONS" >&2

# Fuzzes one target; writes its summary line to $work/TARGET.result and its libFuzzer log to $work/TARGET.log.
fuzz_one() {
    local target="$1"
    local corpus="$work/corpus/$target" artifacts="Fuzz/regressions/$target" log="$work/$target.log"
    mkdir -p "$corpus" "$work/tmp/$target" "$artifacts"
    cp -R "Fuzz/corpus/$target/." "$corpus/"
    find "$artifacts" -maxdepth 1 -type f -exec cp {} "$corpus/" \;
    local status=0
    CARDBOX_FUZZ_TARGET="$target" TMPDIR="$work/tmp/$target" "$fuzzer" "$corpus" -runs="$runs" -max_len=65536 \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    rm -f "$artifacts"/slow-unit-*  # slow but not crashing: not a regression
    local executions artifact
    executions="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || true)"
    artifact="$(grep -o 'Test unit written to [^ ]*' "$log" | grep -v '/slow-unit-' | tail -n 1 || true)"
    artifact="${artifact#Test unit written to }"
    if [ "$status" -eq 0 ] && ! grep -Eq '==[0-9]+==ERROR: |ERROR: libFuzzer' "$log"; then
        echo "$target: ${executions:-0} executions, no crash" >"$work/$target.result"
    else
        echo "$target: CRASH (artifact: ${artifact:-none; exit status $status})" >"$work/$target.result"
        {
            echo "fuzz: $target failed; the end of libFuzzer's output:"
            grep -v '^#[0-9]' "$log" | tail -n 60
        } >&2
    fi
    rmdir "$artifacts" 2>/dev/null || true  # only when empty
    echo "fuzz: $target done" >&2
}

for target in "${targets[@]}"; do
    if [ "$jobs" -gt 1 ]; then
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        echo "fuzz: running $target ($runs runs)" >&2
        fuzz_one "$target" &
    else
        echo "fuzz: running $target ($runs runs)" >&2
        fuzz_one "$target"
    fi
done
wait

passed=0
failed=0
for target in "${targets[@]}"; do
    if [ -f "$work/$target.result" ]; then
        cat "$work/$target.result"
        if grep -q ': CRASH' "$work/$target.result"; then failed=$((failed + 1)); else passed=$((passed + 1)); fi
    else
        echo "$target: CRASH (artifact: none; the run did not finish)"
        failed=$((failed + 1))
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
