#!/usr/bin/env python3
"""The FSRS helper beside fsrs-rs (PyPI fsrs-rs-python): `cardbox fsrs simulate` and
`cardbox fsrs optimal-retention` against fsrs-rs's `simulate` and `optimal_retention` on the same
configurations. Prints, for each, the simulated totals (mean of five seeds: reviews, new cards,
cards memorized at the end) side by side with their difference, the recommended retention of each,
and the time each takes (Cardbox as one whole process for the five seeds, fsrs-rs as calls inside
Python).

The goals: totals within 5 %, recommended retention within 0.02, Cardbox not slower.
Usage: python3 scripts/fsrs_simulator_bench.py .build/release/cardbox
"""
import json
import statistics
import subprocess
import sys
import time

import fsrs_rs_python as fsrs

SEEDS = range(42, 47)
CONFIGS = [
    # name, cards, days, new cards a day (None: no limit), minutes a day
    ("fsrs-rs defaults", 10_000, 365, None, 30),
    ("20 new a day", 10_000, 365, 20, 30),
    ("500 cards, 90 days", 500, 90, 20, 30),
]


def fsrs_config(cards, days, new_per_day, minutes):
    config = fsrs.default_simulator_config()
    config.deck_size = cards
    config.learn_span = days
    config.max_cost_perday = minutes * 60.0
    if new_per_day is not None:
        config.learn_limit = new_per_day
    return config


def cardbox_arguments(cards, days, new_per_day, minutes):
    arguments = ["--cards", str(cards), "--days", str(days), "--minutes-per-day", str(minutes)]
    if new_per_day is not None:
        arguments += ["--new-per-day", str(new_per_day)]
    return arguments


def run_cardbox(binary, arguments):
    started = time.perf_counter()
    output = subprocess.run([binary, *arguments, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(output), time.perf_counter() - started


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    rows = []
    for name, cards, days, new_per_day, minutes in CONFIGS:
        print(f"{name}: simulating {len(SEEDS)} seeds each…", file=sys.stderr, flush=True)
        config = fsrs_config(cards, days, new_per_day, minutes)
        arguments = cardbox_arguments(cards, days, new_per_day, minutes)
        theirs = []
        their_time = 0.0
        for seed in SEEDS:
            started = time.perf_counter()
            result = fsrs.simulate(fsrs.DEFAULT_PARAMETERS, 0.9, config, seed)
            their_time += time.perf_counter() - started
            theirs.append((sum(result.review_cnt_per_day), sum(result.learn_cnt_per_day),
                           result.memorized_cnt_per_day[-1]))
        # One process for every seed, as fsrs-rs's runs share one Python process.
        seeds = [argument for seed in SEEDS for argument in ("--seed", str(seed))]
        report, our_time = run_cardbox(binary, ["fsrs", "simulate", *arguments, *seeds])
        ours = [(run["totals"]["reviews"], run["totals"]["newCards"], run["totals"]["memorized"])
                for run in report["runs"]]
        for index, label in enumerate(["reviews", "new cards", "memorized"]):
            their_mean = statistics.mean(row[index] for row in theirs)
            our_mean = statistics.mean(row[index] for row in ours)
            difference = (our_mean - their_mean) / their_mean * 100
            rows.append((name, label, f"{their_mean:,.0f}", f"{our_mean:,.0f}", f"{difference:+.1f} %",
                         "ok" if abs(difference) <= 5 else "OVER 5 %"))
        rows.append((name, "simulate, 5 runs", f"{their_time:.2f} s", f"{our_time:.2f} s",
                     f"{our_time / their_time:.2f} ×", ""))
        print(f"{name}: recommended retention…", file=sys.stderr, flush=True)
        started = time.perf_counter()
        their_best = fsrs.optimal_retention(config, fsrs.DEFAULT_PARAMETERS)
        their_time = time.perf_counter() - started
        report, our_time = run_cardbox(binary, ["fsrs", "optimal-retention", *arguments])
        our_best = report["desiredRetention"]
        rows.append((name, "recommended retention", f"{their_best:.3f}", f"{our_best:.3f}",
                     f"{our_best - their_best:+.3f}", "ok" if abs(our_best - their_best) <= 0.02 else "OVER 0.02"))
        rows.append((name, "optimal-retention time", f"{their_time:.2f} s", f"{our_time:.2f} s",
                     f"{our_time / their_time:.2f} ×", "ok" if our_time <= their_time else "slower"))
    header = ("configuration", "figure", "fsrs-rs", "Cardbox", "difference", "")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
