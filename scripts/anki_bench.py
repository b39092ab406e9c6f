#!/usr/bin/env python3
"""The peer figure for `cardbox-bench`: Anki's own add_notes for the same number of notes.

Prints one JSON object: {"ankiVersion": ..., "addNotesSeconds": [...], "buildAndAddSeconds": [...]}:
the add_notes call alone, and with the notes' construction (new_note + fields), per run.
Needs `pip install anki` (the desktop app's Python package, which includes its Rust backend).
"""
import json
import os
import sys
import tempfile
import time

from anki.buildinfo import version
from anki.collection import AddNoteRequest, Collection


def add_notes_once(count: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        collection = Collection(os.path.join(folder, "collection.anki2"))
        try:
            model = collection.models.by_name("Basic")
            deck_id = collection.decks.id("Bench")
            built = time.perf_counter()
            requests = []
            for index in range(count):
                note = collection.new_note(model)
                note["Front"] = f"word {index}"
                note["Back"] = f"meaning {index}"
                requests.append(AddNoteRequest(note=note, deck_id=deck_id))
            start = time.perf_counter()
            collection.add_notes(requests)
            end = time.perf_counter()
            return end - start, end - built
        finally:
            collection.close()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    add_only, build_and_add = [], []
    for run in range(runs):
        print(f"anki add_notes {count}: run {run + 1}/{runs}", file=sys.stderr)
        added, total = add_notes_once(count)
        add_only.append(added)
        build_and_add.append(total)
    print(json.dumps({"ankiVersion": version, "addNotesSeconds": add_only, "buildAndAddSeconds": build_and_add}))


if __name__ == "__main__":
    main()
