#!/usr/bin/env python3
"""Anki's figures for the import benchmark (pip install anki): importing a CSV of cards and an .apkg
into an empty collection, each timed around the import call alone.
Usage: python3 scripts/anki_import_bench.py FILE.csv FILE.apkg [RUNS]
Prints {"ankiVersion", "csvSeconds": [...], "apkgSeconds": [...]}.
"""
import json
import os
import sys
import tempfile
import time

from anki.buildinfo import version
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest, ImportCsvRequest


def timed(action, sizes=None) -> float:
    """Runs `action` on a new collection; with `sizes`, appends the collection file's size once closed."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "collection.anki2")
        collection = Collection(path)
        try:
            return action(collection)
        finally:
            collection.close()
            if sizes is not None:
                sizes.append(sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix)))


def import_csv(collection, path) -> float:
    metadata = collection.get_csv_metadata(path=path, delimiter=None)
    start = time.perf_counter()
    collection.import_csv(ImportCsvRequest(path=path, metadata=metadata))
    return time.perf_counter() - start


def import_apkg(collection, path) -> float:
    start = time.perf_counter()
    collection.import_anki_package(
        ImportAnkiPackageRequest(package_path=path, options=ImportAnkiPackageOptions(with_scheduling=True)))
    return time.perf_counter() - start


def main() -> None:
    csv_path, apkg_path = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    result = {"ankiVersion": version, "csvSeconds": [], "apkgSeconds": [], "csvBytes": []}
    for run in range(runs):
        print(f"anki import: run {run + 1}/{runs}", file=sys.stderr)
        result["csvSeconds"].append(timed(lambda collection: import_csv(collection, csv_path), result["csvBytes"]))
        result["apkgSeconds"].append(timed(lambda collection: import_apkg(collection, apkg_path)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
