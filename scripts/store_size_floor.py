#!/usr/bin/env python3
"""What a store's cards and tag links would take with other key encodings: the floor of the store-size
goal of issue 7, measured on the same rows.

Usage: python3 scripts/store_size_floor.py STORE.sqlite

Copies the `card` and `cardTag` rows of STORE into three fresh SQLite files with the same columns and
the same indexes, differing only in how ids are kept: as today (36-character text, every row and index
carrying the account id), as 16-byte blobs, and as integers (the account id dropped: a device store
holds one account). Prints each file's size beside the store's own.
"""
import os
import sqlite3
import sys
import tempfile
import uuid

CARD_COLUMNS = (
    "front TEXT NOT NULL, frontKey TEXT NOT NULL, back TEXT NOT NULL, cardType TEXT NOT NULL, notes TEXT NOT NULL,"
    " frontLanguage TEXT NOT NULL, backLanguage TEXT NOT NULL, isFavorite INTEGER NOT NULL, imageHash TEXT,"
    " imagePrompt TEXT, jsonContent TEXT, isArchived INTEGER NOT NULL, archivedAt INTEGER,"
    " isIncomplete INTEGER NOT NULL, dueAt INTEGER, createdAt INTEGER NOT NULL, modifiedAt INTEGER NOT NULL,"
    " state TEXT NOT NULL, step INTEGER, stability REAL, difficulty REAL, lastReviewAt INTEGER,"
    " reps INTEGER NOT NULL, lapses INTEGER NOT NULL, syncHlc INTEGER NOT NULL, syncReplica INTEGER NOT NULL,"
    " syncVersion INTEGER NOT NULL"
)
CARD_FIELDS = [part.split()[0] for part in CARD_COLUMNS.split(",")]


def schema(key: str, account: bool, sync_id: bool = False) -> str:
    """The card and cardTag tables and indexes with ids of type `key` (with `sync_id`, cards also keep
    their UUID as a 16-byte blob with a unique index, for sync to name them by)."""
    account_column = "accountId TEXT NOT NULL," if account else ""
    uuid_column = "uuid BLOB NOT NULL UNIQUE," if sync_id else ""
    lead = "accountId, " if account else ""
    primary = "INTEGER PRIMARY KEY" if key == "INTEGER" else f"{key} PRIMARY KEY NOT NULL"
    return f"""
    CREATE TABLE card (id {primary}, {uuid_column} {account_column} deckId {key} NOT NULL, {CARD_COLUMNS});
    CREATE INDEX cardByDeck ON card({lead}deckId, isArchived, createdAt, id);
    CREATE INDEX cardByFront ON card(deckId, frontKey, cardType);
    CREATE INDEX cardQueue ON card(deckId, isArchived, state, dueAt, id);
    CREATE INDEX cardNew ON card(deckId, isArchived, state, createdAt, id);
    CREATE INDEX cardBySyncVersion ON card({lead}syncVersion);
    CREATE TABLE cardTag ({account_column} cardId {key} NOT NULL, tagId {key} NOT NULL,
        syncHlc INTEGER NOT NULL, syncReplica INTEGER NOT NULL, syncVersion INTEGER NOT NULL,
        PRIMARY KEY (cardId, tagId)) {"WITHOUT ROWID" if key != "TEXT" else ""};
    CREATE INDEX cardTagByTag ON cardTag(tagId);
    CREATE INDEX cardTagBySyncVersion ON cardTag({lead}syncVersion);
    """


def copy(source: sqlite3.Connection, path: str, key: str, account: bool, sync_id: bool = False) -> int:
    numbers: dict[str, int] = {}

    def encode(text: str):
        if key == "TEXT":
            return text
        if key == "BLOB":
            return uuid.UUID(text).bytes
        return numbers.setdefault(text, len(numbers) + 1)

    target = sqlite3.connect(path)
    target.executescript(schema(key, account, sync_id))
    names = ", ".join(CARD_FIELDS)
    marks = ", ".join("?" * (len(CARD_FIELDS) + (3 if account else 2) + (1 if sync_id else 0)))
    target.execute("BEGIN")
    for row in source.execute(f"SELECT id, accountId, deckId, {names} FROM card ORDER BY id"):
        values = (
            [encode(row[0])] + ([uuid.UUID(row[0]).bytes] if sync_id else []) + ([row[1]] if account else [])
            + [encode(row[2])] + list(row[3:]))
        target.execute(f"INSERT INTO card VALUES ({marks})", values)
    link_marks = ", ".join("?" * (6 if account else 5))
    for row in source.execute("SELECT accountId, cardId, tagId, syncHlc, syncReplica, syncVersion FROM cardTag"):
        values = ([row[0]] if account else []) + [encode(row[1]), encode(row[2])] + list(row[3:])
        target.execute(f"INSERT INTO cardTag VALUES ({link_marks})", values)
    target.commit()
    target.execute("VACUUM")
    target.close()
    return os.path.getsize(path)


def main() -> None:
    store = sys.argv[1]
    source = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    tables = source.execute(
        "SELECT SUM(pgsize) FROM dbstat WHERE name IN ('card', 'cardTag') OR name IN"
        " (SELECT name FROM sqlite_master WHERE tbl_name IN ('card', 'cardTag'))").fetchone()[0]
    print(f"{'encoding':<58}{'cards + tag links':>18}")
    print(f"{'the store itself (dbstat)':<58}{tables / 1e6:>15.1f} MB")
    with tempfile.TemporaryDirectory() as folder:
        for label, key, account, sync in [
            ("36-character text ids, account id in rows and indexes", "TEXT", True, False),
            ("16-byte blob ids, account id in rows and indexes", "BLOB", True, False),
            ("16-byte blob ids, no account id", "BLOB", False, False),
            ("integer ids, no account id", "INTEGER", False, False),
            ("integer ids, no account id, cards keep a 16-byte UUID for sync", "INTEGER", False, True),
        ]:
            size = copy(source, os.path.join(folder, f"{label}.sqlite"), key, account, sync)
            print(f"{label:<58}{size / 1e6:>15.1f} MB")


if __name__ == "__main__":
    main()
