#!/usr/bin/env bash
# Runs the whole test suite: domain tests, store tests on temporary databases, and end-to-end tests
# that run the built cardbox binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test --skip-build --disable-xctest
