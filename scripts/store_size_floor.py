#!/usr/bin/env python3
"""What the next encodings of the card table would take, measured on a store's own rows.

Usage: python3 scripts/store_size_floor.py STORE.sqlite

Copies STORE (any size; VACUUM INTO a scratch folder) and, in each copy, rebuilds the card table with
one more change of encoding than the copy before, keeping its rows, keys and indexes:
  1. as the store has it (the copy vacuumed);
  2. the card table rebuilt as it is, its indexes made after its rows (packed full: the baseline the
     steps after are measured against, as each rebuilds the table the same way);
  3. the card's state and type as small integers instead of words (the row and the queue and front
     indexes).
(The card's id as 16 bytes, which this script measured before, is the store's own encoding since v14.)
Prints each file's size and what the card table and its indexes take in it (dbstat). Nothing in STORE
changes; the copies are measurements, not stores Cardbox opens.
"""
import os
import re
import sqlite3
import sys
import tempfile

STATES = {"new": 0, "learning": 1, "review": 2, "relearning": 3}


def rewrite(definition: str, pattern: str, replacement: str) -> str:
    """`definition` with the one column definition `pattern` matches replaced; fails loudly when the
    store's layout no longer has it (the script measures the layout it was written for)."""
    changed, count = re.subn(pattern, replacement, definition)
    if count != 1:
        raise SystemExit(f"the card table has no column matching {pattern!r}: update this script")
    return changed


def rebuild_card(db: sqlite3.Connection, step: int) -> None:
    """Rebuilds `card` with the encodings of steps 3..`step`, its indexes made again after."""
    definition = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'card'").fetchone()[0]
    indexes = [row[0] for row in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'card' AND sql IS NOT NULL")]
    columns = [row[1] for row in db.execute("PRAGMA table_info(card)")]
    values = {column: column for column in columns}
    if step >= 3:
        definition = rewrite(definition, r"cardType TEXT NOT NULL CHECK \(cardType <> ''\)", "cardType INTEGER NOT NULL")
        definition = rewrite(definition, r"state TEXT NOT NULL DEFAULT 'new' CHECK \(\(state = [^)]*\)\)", "state INTEGER NOT NULL")
        types = [row[0] for row in db.execute("SELECT DISTINCT cardType FROM card ORDER BY cardType")]
        values["cardType"] = "CASE cardType " + " ".join(f"WHEN '{name}' THEN {code}" for code, name in enumerate(types)) + " END"
        values["state"] = "CASE state " + " ".join(f"WHEN '{name}' THEN {code}" for name, code in STATES.items()) + " END"
        indexes = [sql.replace("state = 'new'", f"state = {STATES['new']}") for sql in indexes]
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("BEGIN")
    db.execute(definition.replace('CREATE TABLE "card"', "CREATE TABLE card_next", 1)
               .replace("CREATE TABLE card ", "CREATE TABLE card_next ", 1))
    db.execute(f"INSERT INTO card_next ({', '.join(columns)}) SELECT {', '.join(values[c] for c in columns)} FROM card")
    db.execute("DROP TABLE card")
    db.execute("ALTER TABLE card_next RENAME TO card")
    for sql in indexes:
        db.execute(sql)
    db.commit()
    db.execute("VACUUM")


def card_bytes(db: sqlite3.Connection) -> int:
    return db.execute(
        "SELECT SUM(pgsize) FROM dbstat WHERE name IN"
        " (SELECT name FROM sqlite_master WHERE tbl_name = 'card')").fetchone()[0]


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    store = sys.argv[1]
    labels = [
        "the store (vacuumed copy)",
        "card rebuilt, indexes made after its rows",
        "+ state and card type as integers",
    ]
    print(f"{'encoding':<50}{'file':>10}{'card + indexes':>17}")
    with tempfile.TemporaryDirectory() as folder:
        for step, label in enumerate(labels, start=1):
            print(f"making copy {step}/{len(labels)}…", file=sys.stderr)
            path = os.path.join(folder, f"step{step}.sqlite")
            sqlite3.connect(f"file:{store}?mode=ro", uri=True).execute(f"VACUUM INTO '{path}'")
            db = sqlite3.connect(path, isolation_level=None)
            if step > 1:
                rebuild_card(db, step)
            print(f"{label:<50}{os.path.getsize(path) / 1e6:>7.1f} MB{card_bytes(db) / 1e6:>14.1f} MB")
            db.close()


if __name__ == "__main__":
    main()
