#!/usr/bin/env bash
# Runs the cardbox command line: installs what it needs, builds it (release) when the sources are
# newer than the binary, then passes every argument on. Example: bash scripts/cardbox.sh deck list
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --run
binary=.build/release/cardbox
stale=false
for program in cardbox cardbox-image-worker cardbox-server; do
    if [ ! -x ".build/release/$program" ] || [ -n "$(find Sources Package.swift -newer ".build/release/$program" -print -quit)" ]; then
        stale=true
    fi
done
if $stale; then
    echo "building cardbox (release)…" >&2
    # The Swift runtime and Foundation linked in: the dynamic loader's relocations were a third of
    # a simple command's 22 ms (16 ms static).
    swift build -c release --static-swift-stdlib --product cardbox >&2
    # Images are decoded in a worker process of their own, the one program that links libvips.
    swift build -c release --static-swift-stdlib --product cardbox-image-worker >&2
    # `cardbox serve` and `cardbox admin` hand the process to the server's program.
    swift build -c release --static-swift-stdlib --product cardbox-server >&2
    # A program whose objects did not change is not linked again: mark all three as built now.
    touch .build/release/cardbox .build/release/cardbox-image-worker .build/release/cardbox-server
fi
exec "$binary" "$@"
