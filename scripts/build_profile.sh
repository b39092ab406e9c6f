#!/usr/bin/env bash
# Where a cold start of the README's run command (`bash scripts/cardbox.sh`) spends its time: in a
# fresh clone of this repository (a scratch folder, removed after), the dependency install, package
# resolution, then the release builds of cardbox, cardbox-image-worker and cardbox-server, each
# compiler job timed. With --tests, the debug build of the whole package and its tests instead (what
# `bash scripts/test.sh` and CI build first).
# A wrapper around swiftc and clang (SwiftPM takes them from SWIFT_EXEC and CC) logs each job's
# module, start and end. Prints the phases, then the modules that took the longest.
#
#   bash scripts/build_profile.sh [--tests] [--top 25]
set -euo pipefail
cd "$(dirname "$0")/.."
top=25
tests=0
while [ $# -gt 0 ]; do
    case "$1" in
        --tests) tests=1; shift ;;
        --top) top=$2; shift 2 ;;
        *) echo "usage: bash scripts/build_profile.sh [--tests] [--top N]" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d /tmp/cardbox-build-profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q "$(pwd)" "$work/clone"
# The toolchain's folder, mirrored by links (SwiftPM finds its other tools beside SWIFT_EXEC), with
# swiftc and clang replaced by the timing wrappers.
toolchain=$(dirname "$(readlink -f "$(command -v swiftc)")")
mkdir "$work/bin"
for file in "$toolchain"/*; do ln -s "$file" "$work/bin/$(basename "$file")"; done
# …and its other folders beside bin (the Embedded Swift libraries the WebAssembly build reads are
# found through swiftc's path: bin/../lib).
for folder in "$(dirname "$toolchain")"/*; do
    [ "$(basename "$folder")" = bin ] || ln -s "$folder" "$work/$(basename "$folder")"
done
log="$work/jobs.log"
for tool in swiftc clang; do
    real=$toolchain/$tool
    rm "$work/bin/$tool"
    cat >"$work/bin/$tool" <<WRAPPER
#!/usr/bin/env bash
# The module a job builds: swiftc's -module-name, else the object's target folder (…/Module.build/…).
module=""; previous=""
for argument in "\$@"; do
    [ "\$previous" = "-module-name" ] && module=\$argument
    if [ "\$previous" = "-o" ] && [ -z "\$module" ]; then
        module=\$(echo "\$argument" | sed -n 's|.*/\\([^/]*\\)\\.build/.*|\\1|p')
    fi
    previous=\$argument
done
start=\$(date +%s.%N)
status=0
"$real" "\$@" || status=\$?
echo "$tool \${module:-?} \$start \$(date +%s.%N)" >>"$log"
exit \$status
WRAPPER
    chmod +x "$work/bin/$tool"
done

phase() {  # NAME COMMAND…: runs the command, appends "NAME seconds" to the phases
    local name=$1 started
    shift
    started=$(date +%s.%N)
    "$@" >"$work/$name.out" 2>&1 || { tail -20 "$work/$name.out" >&2; exit 1; }
    echo "$name $(awk -v start="$started" -v end="$(date +%s.%N)" 'BEGIN { print end - start }')" >>"$work/phases"
}
cd "$work/clone"
if [ "$tests" = 1 ]; then
    echo "profiling a cold debug build of the package and its tests in $work/clone (10-15 minutes on two cores)…" >&2
    phase install bash scripts/install-deps.sh --browser
    phase resolve swift package resolve
    export SWIFT_EXEC="$work/bin/swiftc" CC="$work/bin/clang"
    phase build-tests swift build --build-tests
else
    echo "profiling a cold release build in $work/clone (15-25 minutes on two cores)…" >&2
    phase install bash scripts/install-deps.sh --run
    phase resolve swift package resolve
    export SWIFT_EXEC="$work/bin/swiftc" CC="$work/bin/clang"
    phase build-cardbox swift build -c release --static-swift-stdlib --product cardbox
    phase build-image-worker swift build -c release --static-swift-stdlib --product cardbox-image-worker
    phase build-server swift build -c release --static-swift-stdlib --product cardbox-server
fi
python3 - "$work/phases" "$log" "$top" <<'PY'
import collections, sys
phases = [line.split() for line in open(sys.argv[1])]
print("cold build, by phase")
for name, seconds in phases:
    print(f"  {name:20} {float(seconds):8.1f} s")
print(f"  {'total':20} {sum(float(s) for _, s in phases):8.1f} s")
spans, busy, jobs = {}, collections.Counter(), collections.Counter()
for line in open(sys.argv[2]):
    tool, module, start, end = line.split()
    start, end = float(start), float(end)
    first, last = spans.get(module, (start, end))
    spans[module] = (min(first, start), max(last, end))
    busy[module] += end - start
    jobs[module] += 1
total = sum(busy.values())
print(f"\ncompiler jobs: {sum(jobs.values())}, {total:.0f} s of job time in all (two cores run two at once)")
print(f"{'module':32} {'job time':>9} {'share':>6} {'jobs':>5}")
for module, seconds in busy.most_common(int(sys.argv[3])):
    print(f"{module:32} {seconds:8.1f}s {100 * seconds / total:5.1f}% {jobs[module]:5}")
PY
