#!/usr/bin/env python3
"""Anki's figures for the study benchmark, FSRS on (pip install anki):
- answering N cards one by one, each fetched from the queue (getCard) and answered (answerCard);
- building the first 1,000 cards of the queue in a collection of M cards, most of them due.
Prints one JSON object: {"ankiVersion", "answerSeconds": [...], "queueSeconds": [...]}.
"""
import json
import os
import sys
import tempfile
import time

from anki.buildinfo import version
from anki.collection import AddNoteRequest, Collection


def collection_with(folder: str, notes: int, new_per_day: int):
    collection = Collection(os.path.join(folder, "collection.anki2"))
    collection.set_config("fsrs", True)
    deck_id = collection.decks.id("Bench")
    config = collection.decks.config_dict_for_deck_id(deck_id)
    config["new"]["perDay"] = new_per_day
    config["rev"]["perDay"] = 9_999  # the most Anki accepts; v3 also caps new cards by it
    collection.decks.update_config(config)
    collection.decks.select(deck_id)
    model = collection.models.by_name("Basic")
    requests = []
    for index in range(notes):
        note = collection.new_note(model)
        note["Front"] = f"word {index}"
        note["Back"] = f"meaning {index}"
        requests.append(AddNoteRequest(note=note, deck_id=deck_id))
    collection.add_notes(requests)
    return collection


def answer(count: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        collection = collection_with(folder, count, count)
        ratings = [3, 3, 1, 3, 2, 4, 3, 3]
        start = time.perf_counter()
        for index in range(count):
            card = collection.sched.getCard()
            collection.sched.answerCard(card, ratings[index % len(ratings)])
        seconds = time.perf_counter() - start
        collection.close()
        return seconds


def queue(cards: int, runs: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        collection = collection_with(folder, cards, 1_000)
        ids = list(collection.find_cards("deck:Bench"))
        due = ids[: int(len(ids) * 0.6)]
        collection.sched.set_due_date(due, "0")
        timings = []
        for _ in range(runs):
            start = time.perf_counter()
            collection.sched.get_queued_cards(fetch_limit=1_000)
            timings.append(time.perf_counter() - start)
        collection.close()
        return timings


def main() -> None:
    answers = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000
    cards = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    answer_seconds = []
    for run in range(runs):
        print(f"anki: answer {answers} cards, run {run + 1}/{runs}", file=sys.stderr)
        answer_seconds.append(answer(answers))
    print(f"anki: build the queue in a {cards}-card collection", file=sys.stderr)
    queue_seconds = queue(cards, runs)
    print(json.dumps({"ankiVersion": version, "answerSeconds": answer_seconds, "queueSeconds": queue_seconds}))


if __name__ == "__main__":
    main()
