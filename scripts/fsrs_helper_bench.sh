#!/usr/bin/env bash
# The FSRS helper (workload simulator, recommended retention) beside fsrs-rs's, on the same
# configurations: totals, recommended retention and time, side by side (scripts/fsrs_simulator_bench.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
python3 -c "import fsrs_rs_python" 2>/dev/null || pip install --quiet fsrs-rs-python
swift build -c release --static-swift-stdlib --product cardbox >&2
python3 scripts/fsrs_simulator_bench.py .build/release/cardbox
