#!/usr/bin/env python3
"""The import benchmark of issue 4: a 100,000-card CSV and a 10,000-note .apkg (made by the real Anki),
imported by `cardbox import` into a new store (wall time and peak memory of the process) and by Anki
into a new collection (the import call). Needs pip install anki.
Usage: python3 scripts/import_bench.py CARDBOX_BINARY [RUNS]
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cardbox_import(binary: str, path: str, runs: int) -> tuple[float, float, int]:
    """Median seconds, peak MB and the store's size in bytes once the process has ended."""
    seconds, peak, size = [], 0.0, 0
    for run in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            store = os.path.join(folder, "store.sqlite")
            subprocess.run([binary, "--store", store, "plan", "set", "premium"], check=True, capture_output=True)
            started = time.perf_counter()
            child = subprocess.Popen([binary, "--store", store, "import", path, "--deck", "Bench", "--front", "es"],
                                     stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            seconds.append(time.perf_counter() - started)
            if status != 0:
                raise SystemExit(f"cardbox import {path} failed")
            peak = max(peak, usage.ru_maxrss / 1024)
            size = sum(os.path.getsize(store + suffix) for suffix in ("", "-wal") if os.path.exists(store + suffix))
        print(f"cardbox import {os.path.basename(path)}: run {run + 1}/{runs}", file=sys.stderr)
    return statistics.median(seconds), peak, size


def process_ms(command: list[str], runs: int = 30) -> float:
    """Median wall time of a whole process, in milliseconds (as hyperfine -N measures it)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as folder:
        csv_path = os.path.join(folder, "cards.csv")
        with open(csv_path, "w") as file:
            file.write("#separator:comma\n#html:false\n#tags column:3\n")
            # Two tags per card, as the store-size goal of issue 7 says.
            file.writelines(f"word {index},meaning {index},tag{index % 50} group{index % 7}\n" for index in range(100_000))
        apkg_path = os.path.join(folder, "notes.apkg")
        print("making a 10,000-note package with Anki", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "anki_package.py"), apkg_path, "10000"], check=True)
        csv_seconds, csv_peak, csv_bytes = cardbox_import(binary, csv_path, runs)
        apkg_seconds, apkg_peak, _ = cardbox_import(binary, apkg_path, runs)
        store = os.path.join(folder, "small.sqlite")
        subprocess.run([binary, "--store", store, "plan", "show"], check=True, stdout=subprocess.DEVNULL)
        plan_ms = process_ms([binary, "--store", store, "plan", "show"])
        version_ms = process_ms([binary, "--version"])
        anki = json.loads(subprocess.run(
            [sys.executable, os.path.join(HERE, "anki_import_bench.py"), csv_path, apkg_path, str(runs)],
            check=True, capture_output=True, text=True).stdout)
    anki_csv, anki_apkg = statistics.median(anki["csvSeconds"]), statistics.median(anki["apkgSeconds"])
    print(f"{'import':<42}{'Cardbox':>10}{'peak MB':>10}{'Anki ' + anki['ankiVersion']:>16}{'ratio':>8}")
    print(f"{'100,000-card CSV':<42}{csv_seconds:>9.2f}s{csv_peak:>10.0f}{anki_csv:>15.2f}s{csv_seconds / anki_csv:>7.2f}x")
    print(f"{'10,000-note .apkg (3,333 with reviews)':<42}{apkg_seconds:>9.2f}s{apkg_peak:>10.0f}{anki_apkg:>15.2f}s"
          f"{apkg_seconds / anki_apkg:>7.2f}x")
    anki_bytes = statistics.median(anki["csvBytes"])
    print(f"{'store file after the CSV (MB)':<42}{csv_bytes / 1e6:>10.1f}{'':>10}{anki_bytes / 1e6:>16.1f}"
          f"{csv_bytes / anki_bytes:>7.2f}x")
    print("(Cardbox: the whole `cardbox import` process; Anki: the import call; ratio = Cardbox / Anki)")
    print()
    print(f"a simple command, whole process: cardbox plan show {plan_ms:.1f} ms; cardbox --version {version_ms:.1f} ms"
          " (median of 30)")


if __name__ == "__main__":
    main()
