#!/usr/bin/env bash
# Runs the whole test suite: domain tests, store tests on temporary databases, end-to-end tests
# that run the built cardbox binary, and the web app in a real browser (Chromium through selenium;
# screenshots of every page land in .build/web-screenshots).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --browser
python3 scripts/check-layers.py
swift build --build-tests
echo "test.sh: built (at $SECONDS s)"
# A hung test must not eat CI's time: past 20 minutes the run stops and names the tests still running.
log="$(mktemp "${TMPDIR:-/tmp}/cardbox-swift-test.XXXXXX")"
trap 'rm -f "$log"' EXIT
status=0
timeout --kill-after=30 1200 swift test --skip-build --disable-xctest 2>&1 | tee "$log" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "error: swift test ran past its 20 minutes" >&2
    python3 scripts/unfinished-tests.py "$log" >&2
fi
[ "$status" -eq 0 ] || exit "$status"
echo "test.sh: swift test passed (at $SECONDS s)"
python3 Tests/Browser/web_test.py .build/debug/cardbox .build/web-screenshots
