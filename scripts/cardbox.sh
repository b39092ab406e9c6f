#!/usr/bin/env bash
# Runs the cardbox command line: installs what it needs, builds it (release) when the sources are
# newer than the binary, then passes every argument on. Example: bash scripts/cardbox.sh deck list
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
binary=.build/release/cardbox
if [ ! -x "$binary" ] || [ -n "$(find Sources Package.swift -newer "$binary" -print -quit)" ]; then
    echo "building cardbox (release)…" >&2
    swift build -c release --product cardbox >&2
fi
exec "$binary" "$@"
