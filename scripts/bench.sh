#!/usr/bin/env bash
# Every benchmark figure of the issues, beside its peer:
# - the store: batch insert of 10,000 cards (beside the sqlite3 shell doing the same inserts, and
#   Anki's add_notes), listing 1,000 cards of a 100,000-card deck, moving an item in a 10,000-item list;
# - studying: FSRS-6 next-state throughput, answering 1,000 cards, building the due queue (beside Anki);
# - the FSRS optimizer beside fsrs-rs on the same simulated reviews, and its workload simulator and
#   recommended retention beside fsrs-rs's;
# - imports: a 100,000-card CSV and a 10,000-note .apkg, beside Anki, with peak memory;
# - whole processes: `cardbox --version` and `plan show` beside a Foundation hello-world (the sync
#   rows are scripts/sync_bench.sh's).
# Extra arguments go to cardbox-bench (e.g. --runs 9).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
python3 -c "import anki, fsrs, fsrs_rs_python" 2>/dev/null || pip install --quiet anki fsrs fsrs-rs-python
# The same build flags as scripts/cardbox.sh, so the binary measured is the one people run.
swift build -c release --static-swift-stdlib --product cardbox-bench >&2
swift build -c release --static-swift-stdlib --product cardbox >&2
swift build -c release --static-swift-stdlib --product cardbox-image-worker >&2
.build/release/cardbox-bench --anki-script scripts/anki_bench.py \
    --anki-study-script scripts/anki_study_bench.py "$@"
echo
echo "FSRS optimizer beside fsrs-rs on the same simulated reviews, five populations (RMSE by fsrs-rs's evaluate):"
python3 scripts/fsrs_optimizer_bench.py .build/release/cardbox
echo
echo "FSRS helper (workload simulator, recommended retention) beside fsrs-rs:"
python3 scripts/fsrs_simulator_bench.py .build/release/cardbox
echo
echo "Imports (wall time and peak memory of cardbox import, beside Anki):"
python3 scripts/import_bench.py .build/release/cardbox
echo
bash scripts/process_bench.sh
