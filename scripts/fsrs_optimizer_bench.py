#!/usr/bin/env python3
"""Compares `cardbox fsrs optimize` with fsrs-rs (pip install fsrs fsrs-rs-python) on the same reviews,
over several populations: small and large, short and long histories, parameters near and far from
the defaults.

A simulated learner's memory follows "true" FSRS-6 parameters (the defaults, each scaled by a random
factor within the population's spread, kept in FSRS's bounds); cards are scheduled by py-fsrs and each
review is remembered with the true model's probability. Both optimizers fit the same reviews; every
parameter set is then scored by fsrs-rs's own evaluate (log loss, RMSE(bins)). Times, the best of three
runs each: the fit alone in process (Cardbox's through `cardbox-bench --only fit`, fsrs-rs's call inside
Python), and `cardbox fsrs optimize --input` as a whole process (start-up and reading the file too).

Usage: python3 scripts/fsrs_optimizer_bench.py CARDBOX_BINARY [CARDS DAYS [SPREAD]]
  with CARDS and DAYS: that one population (SPREAD: the parameters' spread, default 0.3), as JSON.
  without: every population of POPULATIONS, as a table.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

import fsrs_rs_python as rs
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS


# name, cards, days, spread of the true parameters around the defaults, seed
POPULATIONS = [
    ("3,000 cards, a year (the first bench)", 3_000, 365, 0.3, 7),
    ("500 cards, 90 days", 500, 90, 0.3, 11),
    ("2,500 cards, 400 days, other parameters", 2_500, 400, 0.6, 13),
    ("6,000 cards, two years, far parameters", 6_000, 730, 0.8, 17),
    ("300 cards, three years", 300, 1_095, 0.5, 19),
]


def simulate(cards: int, days: int, rng: random.Random, spread: float = 0.3) -> list[dict]:
    truth = [min(max(value * rng.uniform(1 - spread, 1 + spread), low), high)
             for value, low, high in zip(DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS)]
    scheduler = Scheduler(enable_fuzzing=False)
    true_model = Scheduler(parameters=truth, enable_fuzzing=False)
    start = datetime(2025, 1, 1, 8, 0, 0, tzinfo=timezone.utc)
    end = start + timedelta(days=days)
    reviews = []
    for index in range(cards):
        card, memory = Card(), Card()
        moment = start + timedelta(days=rng.randrange(days // 2), minutes=rng.randrange(600))
        while moment < end:
            if memory.last_review is None:
                rating = rng.choices([1, 2, 3, 4], weights=[2, 1, 6, 1])[0]
            else:
                recall = true_model.get_card_retrievability(memory, current_datetime=moment)
                rating = rng.choices([2, 3, 4], weights=[15, 70, 15])[0] if rng.random() < recall else 1
            reviews.append({"card": f"c{index}", "rating": rating, "time": moment.strftime("%Y-%m-%dT%H:%M:%SZ")})
            card, _ = scheduler.review_card(card, Rating(rating), review_datetime=moment)
            memory, _ = true_model.review_card(memory, Rating(rating), review_datetime=moment)
            moment = card.due + timedelta(minutes=rng.randrange(0, 180))
    return reviews


def fsrs_rs_items(reviews: list[dict]) -> list:
    by_card: dict[str, list[tuple[datetime, int]]] = {}
    for review in reviews:
        moment = datetime.strptime(review["time"], "%Y-%m-%dT%H:%M:%SZ")
        by_card.setdefault(review["card"], []).append((moment, review["rating"]))
    items = []
    for history in by_card.values():
        history.sort()
        steps = [rs.FSRSReview(history[0][1], 0)]
        for (before, _), (after, rating) in zip(history, history[1:]):
            steps.append(rs.FSRSReview(rating, (after - before).days))
            if (after - before).days > 0:
                items.append(rs.FSRSItem(list(steps)))  # items predict reviews a day or more apart
    return items


def compare(binary: str, cards: int, days: int, spread: float, seed: int, runs: int = 3) -> dict:
    print(f"simulating {cards} cards over {days} days (spread {spread})", file=sys.stderr, flush=True)
    reviews = simulate(cards, days, random.Random(seed), spread)
    items = fsrs_rs_items(reviews)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "reviews.jsonl")
        with open(path, "w") as file:
            file.writelines(json.dumps(review) + "\n" for review in reviews)
        print("cardbox fsrs optimize", file=sys.stderr, flush=True)
        cardbox_seconds = float("inf")
        for _ in range(runs):
            started = time.perf_counter()
            output = subprocess.run([binary, "fsrs", "optimize", "--input", path, "--json"], check=True,
                                    capture_output=True, text=True).stdout
            cardbox_seconds = min(cardbox_seconds, time.perf_counter() - started)
        # The fit alone, in process, as fsrs-rs's call is measured (cardbox-bench beside the binary).
        bench = os.path.join(os.path.dirname(binary), "cardbox-bench")
        fit = json.loads(subprocess.run([bench, "--only", "fit", "--reviews", path, "--runs", str(runs)],
                                        check=True, capture_output=True, text=True).stdout)
    cardbox = json.loads(output)
    print("fsrs-rs compute_parameters", file=sys.stderr, flush=True)
    fsrs_rs_seconds = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fitted = rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)
        fsrs_rs_seconds = min(fsrs_rs_seconds, time.perf_counter() - started)

    def score(parameters):
        evaluation = rs.FSRS(list(parameters)).evaluate(items)
        return {"logLoss": evaluation.log_loss, "rmseBins": evaluation.rmse_bins}

    return {
        "reviews": len(reviews), "items": len(items),
        "defaults": score(DEFAULT_PARAMETERS),
        "cardbox": {**score(cardbox["parameters"]), "seconds": cardbox_seconds, "fitSeconds": fit["fitSeconds"],
                    "own": cardbox["after"]},
        "fsrsRs": {**score(fitted), "seconds": fsrs_rs_seconds},
    }


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    if len(sys.argv) > 3:
        spread = float(sys.argv[4]) if len(sys.argv) > 4 else 0.3
        print(json.dumps(compare(binary, int(sys.argv[2]), int(sys.argv[3]), spread, 7), indent=1))
        return
    header = ("population", "reviews", "fsrs-rs fit", "Cardbox fit", "ratio", "cardbox fsrs optimize",
              "RMSE fsrs-rs", "RMSE Cardbox")
    rows = []
    for name, cards, days, spread, seed in POPULATIONS:
        result = compare(binary, cards, days, spread, seed)
        theirs, ours = result["fsrsRs"], result["cardbox"]
        rows.append((name, f"{result['reviews']:,}", f"{theirs['seconds']:.3f} s", f"{ours['fitSeconds']:.3f} s",
                     f"{ours['fitSeconds'] / theirs['seconds']:.2f} ×", f"{ours['seconds']:.3f} s",
                     f"{theirs['rmseBins']:.4f}", f"{ours['rmseBins']:.4f}"))
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
