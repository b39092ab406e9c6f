#!/usr/bin/env bash
# Runs the whole test suite: domain tests, store tests on temporary databases, end-to-end tests
# that run the built cardbox binary, and the web app in a real browser (Chromium through selenium;
# screenshots of every page land in .build/web-screenshots).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --browser
python3 scripts/check-layers.py
swift build --build-tests
swift test --skip-build --disable-xctest
python3 Tests/Browser/web_test.py .build/debug/cardbox .build/web-screenshots
