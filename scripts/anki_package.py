#!/usr/bin/env python3
"""Makes an Anki package with the real Anki (pip install anki), exported with legacy support
("Support older Anki versions"), for Cardbox's .apkg import tests and benchmark.

Usage: python3 scripts/anki_package.py OUT.apkg [NOTES]
With NOTES (the benchmark), the package holds that many Basic notes, a third of them reviewed.
Without it (the test fixture): Basic, Basic (and reversed card) and Cloze notes, tags, a nested deck,
an image in the media, review history and a suspended card.
"""
import os
import struct
import sys
import tempfile
import zlib

from anki.collection import Collection, ExportAnkiPackageOptions

PNG = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
       + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)))
       + struct.pack(">I", 12) + b"IDAT" + zlib.compress(b"\x00\xff\x00\x00")
       + struct.pack(">I", zlib.crc32(b"IDAT" + zlib.compress(b"\x00\xff\x00\x00"))) + struct.pack(">I", 0) + b"IEND"
       + struct.pack(">I", zlib.crc32(b"IEND")))


def add(collection, model_name, deck, fields, tags=()):
    model = collection.models.by_name(model_name)
    note = collection.new_note(model)
    for name, value in fields.items():
        note[name] = value
    note.tags = list(tags)
    collection.add_note(note, collection.decks.id(deck))
    return note


def fixture(collection):
    image = collection.media.write_data("gato.png", PNG)
    add(collection, "Basic", "Spanish::Animals", {"Front": f'el gato<br><img src="{image}">', "Back": "the <b>cat</b>"},
        ["animal", "noun"])
    add(collection, "Basic", "Spanish::Animals", {"Front": "el perro", "Back": "the dog &amp; friend"}, ["animal"])
    add(collection, "Basic (and reversed card)", "Spanish", {"Front": "hola", "Back": "hello"}, ["greeting"])
    add(collection, "Cloze", "Spanish", {"Text": "{{c1::Buenos}} días"})
    suspended = add(collection, "Basic", "Spanish", {"Front": "adiós", "Back": "goodbye"})
    collection.sched.suspend_cards([card.id for card in suspended.cards()])
    collection.set_config("fsrs", True)
    collection.decks.select(collection.decks.id("Spanish::Animals"))
    for ease in (3, 3, 1):
        card = collection.sched.getCard()
        collection.sched.answerCard(card, ease)


def benchmark(collection, notes):
    model = collection.models.by_name("Basic")
    deck_id = collection.decks.id("Bench")
    from anki.collection import AddNoteRequest
    requests = []
    for index in range(notes):
        note = collection.new_note(model)
        note["Front"] = f"word {index}"
        note["Back"] = f"meaning {index}"
        requests.append(AddNoteRequest(note=note, deck_id=deck_id))
    collection.add_notes(requests)
    config = collection.decks.config_dict_for_deck_id(deck_id)
    config["new"]["perDay"] = 9_999
    config["rev"]["perDay"] = 9_999
    collection.decks.update_config(config)
    collection.decks.select(deck_id)
    for index in range(notes // 3):
        card = collection.sched.getCard()
        collection.sched.answerCard(card, 3 if index % 5 else 1)


def main():
    out = os.path.abspath(sys.argv[1])
    notes = int(sys.argv[2]) if len(sys.argv) > 2 else None
    with tempfile.TemporaryDirectory() as folder:
        collection = Collection(os.path.join(folder, "collection.anki2"))
        if notes is None:
            fixture(collection)
        else:
            benchmark(collection, notes)
        collection.export_anki_package(
            out_path=out, limit=None,
            options=ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False, with_media=True, legacy=True))
        collection.close()


if __name__ == "__main__":
    main()
