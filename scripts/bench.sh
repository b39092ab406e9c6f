#!/usr/bin/env bash
# The foundation benchmark: batch insert of 10,000 cards (beside the sqlite3 shell doing the same
# inserts, and Anki's add_notes), listing 1,000 cards of a 100,000-card deck, moving an item in a
# 10,000-item list. Extra arguments go to cardbox-bench (e.g. --runs 9).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
python3 -c "import anki" 2>/dev/null || pip install --quiet anki
swift build -c release --product cardbox-bench >&2
exec .build/release/cardbox-bench --anki-script scripts/anki_bench.py \
    --anki-study-script scripts/anki_study_bench.py "$@"
