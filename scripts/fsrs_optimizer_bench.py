#!/usr/bin/env python3
"""Compares `cardbox fsrs optimize` with fsrs-rs (pip install fsrs fsrs-rs-python) on the same reviews.

A simulated learner's memory follows "true" FSRS-6 parameters (the defaults, perturbed); cards are
scheduled by py-fsrs and each review is remembered with the true model's probability. Both optimizers
fit the same reviews; every parameter set is then scored by fsrs-rs's own evaluate (log loss, RMSE(bins)).
Usage: python3 scripts/fsrs_optimizer_bench.py CARDBOX_BINARY [CARDS] [DAYS]
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


def simulate(cards: int, days: int, rng: random.Random) -> list[dict]:
    truth = [min(max(value * rng.uniform(0.7, 1.3), low), high)
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


def main() -> None:
    binary = sys.argv[1]
    cards = int(sys.argv[2]) if len(sys.argv) > 2 else 3_000
    days = int(sys.argv[3]) if len(sys.argv) > 3 else 365
    print(f"simulating {cards} cards over {days} days", file=sys.stderr)
    reviews = simulate(cards, days, random.Random(7))
    items = fsrs_rs_items(reviews)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "reviews.jsonl")
        with open(path, "w") as file:
            file.writelines(json.dumps(review) + "\n" for review in reviews)
        print("cardbox fsrs optimize", file=sys.stderr)
        started = time.perf_counter()
        output = subprocess.run([binary, "fsrs", "optimize", "--input", path, "--json"], check=True,
                                capture_output=True, text=True).stdout
        cardbox_seconds = time.perf_counter() - started
    cardbox = json.loads(output)
    print("fsrs-rs compute_parameters", file=sys.stderr)
    started = time.perf_counter()
    fitted = rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)
    fsrs_rs_seconds = time.perf_counter() - started

    def score(parameters):
        evaluation = rs.FSRS(list(parameters)).evaluate(items)
        return {"logLoss": evaluation.log_loss, "rmseBins": evaluation.rmse_bins}

    print(json.dumps({
        "reviews": len(reviews), "items": len(items),
        "defaults": score(DEFAULT_PARAMETERS),
        "cardbox": {**score(cardbox["parameters"]), "seconds": cardbox_seconds, "own": cardbox["after"]},
        "fsrsRs": {**score(fitted), "seconds": fsrs_rs_seconds},
    }, indent=1))


if __name__ == "__main__":
    main()
