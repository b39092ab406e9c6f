#!/usr/bin/env python3
"""Makes the reference cases `cardbox fsrs replay` is tested against, with py-fsrs (pip install fsrs).

Each case file holds the scheduler options, review lines in replay's input format, and what py-fsrs
says after each review: state, step, stability, difficulty, due, and the retrievability just before
the review. Fuzz is off. Dues follow Anki's order of the passing ratings (see `ordered_review`),
which py-fsrs does not apply; everything else is py-fsrs's own. Made with fsrs 6.3.2. Run: python3 scripts/fsrs_cases.py Tests/CardboxSchedulingTests/Fixtures
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fsrs
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS


def parse_steps(text: str) -> list[timedelta]:
    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
    return [timedelta(**{units[step[-1]]: int(step[:-1])}) for step in text.split(",") if step]


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def random_parameters(rng: random.Random) -> list[float]:
    # Near the defaults, within FSRS's bounds: realistic fitted parameters.
    values = []
    for default, low, high in zip(DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS):
        value = default * rng.uniform(0.6, 1.4) + rng.uniform(-0.05, 0.05)
        values.append(round(min(max(value, low), high), 4))
    return values


def ordered_review(scheduler: Scheduler, card: Card, rating: Rating, moment: datetime) -> Card:
    """py-fsrs's review, with Anki's rule that a passing rating's day interval is at least a day
    longer than the one below it (Good past Hard, Easy past Good), up to the maximum interval."""
    def days(outcome: Card) -> int | None:
        if outcome.state != fsrs.State.Review:
            return None
        return round((outcome.due - moment).total_seconds() / 86400)

    reviewed, _ = scheduler.review_card(card, rating, review_datetime=moment)
    interval = days(reviewed)
    if interval is None or rating == Rating.Again:
        return reviewed
    shortest = 1
    for lower in range(2, int(rating)):
        below = days(scheduler.review_card(card, Rating(lower), review_datetime=moment)[0])
        shortest = min(max(below, shortest) + 1, scheduler.maximum_interval) if below is not None else 1
    reviewed.due = moment + timedelta(days=max(interval, shortest))
    return reviewed


def make_case(name: str, rng: random.Random, options: dict, cards: int) -> dict:
    scheduler = Scheduler(
        parameters=options["parameters"],
        desired_retention=options["desiredRetention"],
        learning_steps=parse_steps(options["learningSteps"]),
        relearning_steps=parse_steps(options["relearningSteps"]),
        maximum_interval=options["maximumInterval"],
        enable_fuzzing=False,
    )
    lines, expected = [], []
    start = datetime(2025, 1, 1, 9, 0, 0, tzinfo=timezone.utc)
    for index in range(cards):
        card_id = f"{name}-{index}"
        card = Card()
        moment = start + timedelta(minutes=rng.randrange(0, 600))
        for _ in range(rng.randrange(1, 16)):
            rating = Rating(rng.choices([1, 2, 3, 4], weights=[2, 2, 6, 1])[0])
            before = scheduler.get_card_retrievability(card, current_datetime=moment)
            card = ordered_review(scheduler, card, rating, moment)
            lines.append({"card": card_id, "rating": int(rating), "time": iso(moment)})
            expected.append({
                "card": card_id, "state": card.state.name.lower(), "step": card.step,
                "stability": card.stability, "difficulty": card.difficulty, "due": iso(card.due),
                "retrievability": before,
            })
            # Next review: on time, early, or late, in whole seconds.
            interval = (card.due - moment).total_seconds()
            factor = rng.choice([0.3, 0.8, 1.0, 1.0, 1.5, 3.0])
            moment = moment + timedelta(seconds=max(1, int(interval * factor)) + rng.randrange(0, 3600))
    return {"name": name, "fsrsVersion": fsrs.__version__ if hasattr(fsrs, "__version__") else "6",
            "options": options, "input": lines, "expected": expected}


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20251122)
    default = {"parameters": list(DEFAULT_PARAMETERS), "desiredRetention": 0.9, "learningSteps": "1m,10m",
               "relearningSteps": "10m", "maximumInterval": 36500}
    configurations = {
        "defaults": default,
        "no-steps": {**default, "learningSteps": "", "relearningSteps": ""},
        "one-step": {**default, "learningSteps": "1h", "relearningSteps": "30m"},
        "three-steps": {**default, "learningSteps": "1m,10m,1h", "relearningSteps": "10m,1h",
                        "desiredRetention": 0.8},
        "short-maximum": {**default, "maximumInterval": 30, "desiredRetention": 0.95},
        "fitted-a": {**default, "parameters": random_parameters(rng), "desiredRetention": 0.85},
        "fitted-b": {**default, "parameters": random_parameters(rng), "learningSteps": "5m",
                     "relearningSteps": ""},
    }
    for name, options in configurations.items():
        case = make_case(name, rng, options, cards=25)
        (folder / f"{name}.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: {len(case['input'])} reviews", file=sys.stderr)


if __name__ == "__main__":
    main()
