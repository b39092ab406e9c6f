#!/usr/bin/env bash
# Installs what building and running Cardbox needs beyond the Swift toolchain: SQLite's library and
# headers (GRDB links the system SQLite), zlib's (for Anki packages and dictzip dictionaries),
# libvips (images), WordNet and FreeDict dictionaries (offline suggestions), and mustache.js (the
# web app's offline pages). With --run, only
# that (what `scripts/cardbox.sh` needs). Otherwise also the sqlite3 shell (the benchmark's
# reference) and PostgreSQL's server (the tests start a throwaway one; `cardbox serve --database
# postgres://…` uses any). With --browser, also what the tests drive beyond Swift: Chromium, its
# driver, selenium and axe-core-python (the web app's browser test and its accessibility audit),
# and Node (which runs the browser's WebAssembly scheduler and replica against the native ones, in
# the tests and in `cardbox-converge --browser-replica`).
set -euo pipefail
missing=()
if [ "${1:-}" = "--browser" ]; then
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
fi
dpkg -s libsqlite3-dev >/dev/null 2>&1 || missing+=(libsqlite3-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)
# libvips decodes, checks and thumbnails every image (HEIC through libheif), and draws pictures.
dpkg -s libvips-dev >/dev/null 2>&1 || missing+=(libvips-dev)
# The offline suggestion provider's dictionaries: WordNet, and FreeDict's Spanish–English pair.
dpkg -s wordnet-base >/dev/null 2>&1 || missing+=(wordnet-base)
dpkg -s dict-freedict-spa-eng >/dev/null 2>&1 || missing+=(dict-freedict-spa-eng)
dpkg -s dict-freedict-eng-spa >/dev/null 2>&1 || missing+=(dict-freedict-eng-spa)
# mustache.js: the browser draws its offline pages with the server's templates.
dpkg -s libjs-mustache >/dev/null 2>&1 || missing+=(libjs-mustache)
if [ "${1:-}" != "--run" ]; then
    command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
    ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
fi
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "${1:-}" = "--browser" ]; then
    python3 -c "import selenium" 2>/dev/null || pip install --quiet selenium
    python3 -c "import axe_core_python" 2>/dev/null || pip install --quiet axe-core-python
fi
command -v swift >/dev/null 2>&1 || { echo "error: the Swift toolchain (6.1 or newer) is not on PATH" >&2; exit 1; }
