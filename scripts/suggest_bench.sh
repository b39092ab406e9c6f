#!/usr/bin/env bash
# Issue 10's figures: suggestions per second for a deck of 1,000 cards (the offline provider on
# WordNet and FreeDict, through the maintenance step), and image ingest per second with peak memory
# for 12-megapixel JPEG and HEIC photos (decode, check, shrink to 2048 px, thumbnail).
#
# Usage: bash scripts/suggest_bench.sh [--cards N] [--queue N] [--photos N] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product cardbox-suggest-bench >&2
swift build -c release --product cardbox-image-worker >&2
.build/release/cardbox-suggest-bench "$@"
