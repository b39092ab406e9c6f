import GRDB

/// The store's schema, as append-only migrations: a migration, once shipped, is never edited; a change
/// of schema is a new migration. Migrations hold SQL only, never app types, so old ones keep working.
///
/// Conventions that keep the SQL portable to PostgreSQL: ids read as lowercase UUID text (a card's
/// is kept as 16 bytes, `uid`, and read as text through `cardbox_uuid_text(uid)`), times are
/// integer milliseconds since 1970 (UTC), booleans are 0/1 integers with CHECKs, order is a position
/// key compared as bytes (PostgreSQL needs `COLLATE "C"` on those columns). A store file holds one
/// account, named in `storeInfo` (until v11, every table carried `accountId`).
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: accounts, decks, cards, lists, boards, history", migrate: createVersion1)
        migrator.registerMigration(studyMigration, migrate: addStudy)
        migrator.registerMigration("v3: archived board cards", migrate: addBoardCardArchive)
        migrator.registerMigration("v4: clocks per row and field, tombstones, held rows", migrate: addClocks)
        migrator.registerMigration("v5: sibling order indexes lead with the account", migrate: scopeOrderIndexes)
        migrator.registerMigration(
            "v6: slimmer sync-version indexes, answers counted from an index", migrate: slimIndexes)
        migrator.registerMigration("v7: cards and suggestions with images found by index", migrate: indexImageHashes)
        migrator.registerMigration("v8: image thumbnails and dimensions", migrate: addImageThumbnails)
        migrator.registerMigration("v9: image generation attempts of suggestions", migrate: addImageJobs)
        migrator.registerMigration("v10: cloze cards", migrate: addClozeNumbers)
        migrator.registerMigration(accountColumnsDropped, migrate: dropAccountColumns)
        migrator.registerMigration(integerKeys, migrate: addIntegerKeys)
        migrator.registerMigration(
            "v13: study indexes hold only the cards they are read for", migrate: narrowStudyIndexes)
        migrator.registerMigration(cardIdsAsBytes, migrate: keepCardIdsAsBytes)
        migrator.registerMigration(
            "v15: each deck's answers of the day, counted as they are logged", migrate: countDayAnswers)
        migrator.registerMigration(
            "v16: checks of a few named values written as comparisons", migrate: compareNamedValues)
        migrator.registerMigration(
            "v17: a card's id read from its bytes, not computed at every write", migrate: dropCardIdText)
        migrator.registerMigration(
            "v18: cards made at one moment ordered by id, as on every device", migrate: orderTiesById)
        return migrator
    }

    static let studyMigration = "v2: spaced repetition (FSRS state, study settings, review log)"
    static let accountColumnsDropped = "v11: the file is the account"
    static let integerKeys = "v12: decks, cards and tags named by integer key"
    static let cardIdsAsBytes = "v14: card ids kept as 16 bytes"

    /// Migrations that make tables again, leaving the old tables' pages free in the file.
    static let rebuildingMigrations = [accountColumnsDropped, integerKeys, cardIdsAsBytes]

    /// What migrating an existing store does: whether it has migrations to run, and whether they make
    /// tables again (v11, v12, v14), which leaves the old tables' pages free in the file: worth a VACUUM
    /// after (100,000 cards: 46 MB of 157). A new store (no migration run yet) is no upgrade.
    struct Upgrade {
        var isPending: Bool
        var rebuildsTables: Bool

        static let none = Upgrade(isPending: false, rebuildsTables: false)
    }

    /// Read from `grdb_migrations` once: this runs at every open of a store, every command's start.
    static func upgrade(_ db: Database) throws -> Upgrade {
        let migrator = self.migrator
        let applied = try migrator.appliedIdentifiers(db)
        guard !applied.isEmpty else { return .none }
        return Upgrade(
            isPending: !Set(migrator.migrations).isSubset(of: applied),
            rebuildsTables: !Set(rebuildingMigrations).isSubset(of: applied))
    }

    private static func createVersion1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE storeInfo (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);

                CREATE TABLE account (
                    id TEXT PRIMARY KEY NOT NULL,
                    plan TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'premium')),
                    freeCardLimit INTEGER NOT NULL DEFAULT 25 CHECK (freeCardLimit >= 0),
                    createdAt INTEGER NOT NULL
                );

                CREATE TABLE deck (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL CHECK (name <> ''),
                    nameKey TEXT NOT NULL,
                    frontLanguage TEXT NOT NULL CHECK (length(frontLanguage) = 2),
                    backLanguage TEXT NOT NULL CHECK (length(backLanguage) = 2),
                    queuedSuggestions INTEGER NOT NULL DEFAULT 0 CHECK (queuedSuggestions >= 0),
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX deckName ON deck(accountId, nameKey);

                CREATE TABLE card (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
                    front TEXT NOT NULL CHECK (front <> ''),
                    frontKey TEXT NOT NULL,
                    back TEXT NOT NULL,
                    cardType TEXT NOT NULL CHECK (cardType <> ''),
                    notes TEXT NOT NULL DEFAULT '',
                    frontLanguage TEXT NOT NULL,
                    backLanguage TEXT NOT NULL,
                    isFavorite INTEGER NOT NULL DEFAULT 0 CHECK (isFavorite IN (0, 1)),
                    imageHash TEXT,
                    imagePrompt TEXT,
                    jsonContent TEXT,
                    isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1)),
                    archivedAt INTEGER,
                    isIncomplete INTEGER NOT NULL DEFAULT 0 CHECK (isIncomplete IN (0, 1)),
                    dueAt INTEGER,
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL,
                    CHECK ((isArchived = 1) = (archivedAt IS NOT NULL))
                );
                CREATE INDEX cardByDeck ON card(accountId, deckId, isArchived, createdAt, id);
                CREATE INDEX cardByFront ON card(deckId, frontKey, cardType);
                CREATE INDEX cardByDue ON card(deckId, isArchived, dueAt);

                CREATE TABLE tag (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL CHECK (name <> ''),
                    nameKey TEXT NOT NULL,
                    createdAt INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX tagName ON tag(accountId, nameKey);

                CREATE TABLE cardTag (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    cardId TEXT NOT NULL REFERENCES card(id) ON DELETE CASCADE,
                    tagId TEXT NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
                    PRIMARY KEY (cardId, tagId)
                );
                CREATE INDEX cardTagByTag ON cardTag(tagId);

                CREATE TABLE suggestion (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
                    front TEXT NOT NULL CHECK (front <> ''),
                    frontKey TEXT NOT NULL,
                    back TEXT NOT NULL,
                    cardType TEXT NOT NULL CHECK (cardType <> ''),
                    imagePrompt TEXT,
                    context TEXT NOT NULL DEFAULT '',
                    category TEXT NOT NULL CHECK (category IN
                        ('related_vocabulary', 'usage_examples', 'opposites', 'progressive_complexity')),
                    isVisible INTEGER NOT NULL DEFAULT 0 CHECK (isVisible IN (0, 1)),
                    imageHash TEXT,
                    createdAt INTEGER NOT NULL
                );
                CREATE INDEX suggestionByDeck ON suggestion(deckId, frontKey, cardType);

                CREATE TABLE rejectedSuggestion (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
                    front TEXT NOT NULL CHECK (front <> ''),
                    frontKey TEXT NOT NULL,
                    cardType TEXT NOT NULL CHECK (cardType <> ''),
                    deletedAt INTEGER NOT NULL
                );
                CREATE INDEX rejectedByFront ON rejectedSuggestion(deckId, frontKey, cardType);
                CREATE INDEX rejectedByDate ON rejectedSuggestion(deckId, deletedAt);

                CREATE TABLE image (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
                    mimeType TEXT NOT NULL CHECK (mimeType IN ('image/jpeg', 'image/png', 'image/heic')),
                    byteCount INTEGER NOT NULL CHECK (byteCount BETWEEN 1 AND 5242880),
                    data BLOB NOT NULL,
                    createdAt INTEGER NOT NULL,
                    PRIMARY KEY (accountId, sha256)
                );

                CREATE TABLE itemList (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL CHECK (name <> ''),
                    position TEXT NOT NULL,
                    isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1)),
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE INDEX itemListByPosition ON itemList(accountId, position, id);

                CREATE TABLE item (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    listId TEXT NOT NULL REFERENCES itemList(id) ON DELETE CASCADE,
                    title TEXT NOT NULL CHECK (title <> ''),
                    description TEXT NOT NULL DEFAULT '',
                    quantity INTEGER CHECK (quantity BETWEEN -2147483648 AND 2147483647),
                    position TEXT NOT NULL,
                    isCrossedOut INTEGER NOT NULL DEFAULT 0 CHECK (isCrossedOut IN (0, 1)),
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE INDEX itemByPosition ON item(listId, position, id);

                CREATE TABLE itemImage (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    itemId TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    imageHash TEXT NOT NULL,
                    position TEXT NOT NULL,
                    createdAt INTEGER NOT NULL
                );
                CREATE INDEX itemImageByPosition ON itemImage(itemId, position, id);

                CREATE TABLE board (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    boardTitle TEXT NOT NULL CHECK (boardTitle <> ''),
                    nameKey TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE INDEX boardByAccount ON board(accountId, createdAt);

                CREATE TABLE boardColumn (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    boardId TEXT NOT NULL REFERENCES board(id) ON DELETE CASCADE,
                    listTitle TEXT NOT NULL CHECK (listTitle <> ''),
                    position TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE INDEX boardColumnByPosition ON boardColumn(boardId, position, id);

                CREATE TABLE boardCard (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    columnId TEXT NOT NULL REFERENCES boardColumn(id) ON DELETE CASCADE,
                    cardTitle TEXT NOT NULL CHECK (cardTitle <> ''),
                    cardDescription TEXT,
                    position TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    modifiedAt INTEGER NOT NULL
                );
                CREATE INDEX boardCardByPosition ON boardCard(columnId, position, id);

                CREATE TABLE setting (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (accountId, key)
                );

                CREATE TABLE usageEvent (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    occurredAt INTEGER NOT NULL,
                    cardLanguage TEXT,
                    hasTags INTEGER CHECK (hasTags IN (0, 1)),
                    tagCount INTEGER
                );
                CREATE INDEX usageEventByName ON usageEvent(accountId, name);

                CREATE TABLE changeLog (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    entity TEXT NOT NULL,
                    rowId TEXT NOT NULL,
                    operation TEXT NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
                    fields TEXT NOT NULL,
                    hlc INTEGER NOT NULL,
                    replicaId TEXT NOT NULL
                );
                CREATE INDEX changeLogByAccount ON changeLog(accountId, seq);
                """)
    }

    static func addStudy(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE card ADD COLUMN state TEXT NOT NULL DEFAULT 'new'
                    CHECK (state IN ('new', 'learning', 'review', 'relearning'));
                ALTER TABLE card ADD COLUMN step INTEGER CHECK (step >= 0);
                ALTER TABLE card ADD COLUMN stability REAL CHECK (stability > 0);
                ALTER TABLE card ADD COLUMN difficulty REAL CHECK (difficulty BETWEEN 1 AND 10);
                ALTER TABLE card ADD COLUMN lastReviewAt INTEGER;
                ALTER TABLE card ADD COLUMN reps INTEGER NOT NULL DEFAULT 0 CHECK (reps >= 0);
                ALTER TABLE card ADD COLUMN lapses INTEGER NOT NULL DEFAULT 0 CHECK (lapses >= 0);
                -- Cards given a due time before this migration are review cards without a memory yet.
                UPDATE card SET state = 'review' WHERE dueAt IS NOT NULL;
                DROP INDEX cardByDue;
                CREATE INDEX cardQueue ON card(deckId, isArchived, state, dueAt, id);
                CREATE INDEX cardNew ON card(deckId, isArchived, state, createdAt, id);

                ALTER TABLE deck ADD COLUMN desiredRetention REAL NOT NULL DEFAULT 0.9
                    CHECK (desiredRetention > 0 AND desiredRetention < 1);
                ALTER TABLE deck ADD COLUMN learningSteps TEXT NOT NULL DEFAULT '1m,10m';
                ALTER TABLE deck ADD COLUMN relearningSteps TEXT NOT NULL DEFAULT '10m';
                ALTER TABLE deck ADD COLUMN maximumInterval INTEGER NOT NULL DEFAULT 36500 CHECK (maximumInterval >= 1);
                ALTER TABLE deck ADD COLUMN newCardsPerDay INTEGER NOT NULL DEFAULT 20 CHECK (newCardsPerDay >= 0);
                ALTER TABLE deck ADD COLUMN reviewsPerDay INTEGER NOT NULL DEFAULT 200 CHECK (reviewsPerDay >= 0);
                ALTER TABLE deck ADD COLUMN fsrsParameters TEXT;
                ALTER TABLE deck ADD COLUMN enableFuzz INTEGER NOT NULL DEFAULT 1 CHECK (enableFuzz IN (0, 1));

                CREATE TABLE reviewLog (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    cardId TEXT NOT NULL REFERENCES card(id) ON DELETE CASCADE,
                    deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
                    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
                    reviewedAt INTEGER NOT NULL,
                    stateBefore TEXT NOT NULL CHECK (stateBefore IN ('new', 'learning', 'review', 'relearning')),
                    stateAfter TEXT NOT NULL CHECK (stateAfter IN ('learning', 'review', 'relearning')),
                    elapsedDays INTEGER NOT NULL CHECK (elapsedDays >= 0),
                    durationMs INTEGER CHECK (durationMs >= 0),
                    previous TEXT NOT NULL
                );
                CREATE INDEX reviewLogByCard ON reviewLog(cardId, reviewedAt);
                CREATE INDEX reviewLogByDeck ON reviewLog(deckId, reviewedAt);
                CREATE INDEX reviewLogByTime ON reviewLog(accountId, reviewedAt);
                """)
    }

    static func addBoardCardArchive(_ db: Database) throws {
        try db.execute(
            sql: "ALTER TABLE boardCard ADD COLUMN isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1))")
    }

    /// Replaces the change log (a JSON copy of every write) with clocks kept beside the data: each
    /// synced row carries the clock of its creation and the version of its last local write; a field
    /// written later has its own clock in `fieldClock`. See docs/sync.md.
    static func addClocks(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE replica (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
                -- Rows that existed before clocks: written by no replica in particular, at time 0.
                INSERT INTO replica (key, id) VALUES (0, 'origin');
                INSERT INTO replica (id) SELECT value FROM storeInfo WHERE key = 'replicaId';

                CREATE TABLE fieldClock (
                    accountId TEXT NOT NULL,
                    entity TEXT NOT NULL,
                    rowId TEXT NOT NULL,
                    field TEXT NOT NULL,
                    hlc INTEGER NOT NULL,
                    replica INTEGER NOT NULL REFERENCES replica(key),
                    PRIMARY KEY (accountId, entity, rowId, field)
                ) WITHOUT ROWID;

                CREATE TABLE tombstone (
                    accountId TEXT NOT NULL,
                    entity TEXT NOT NULL,
                    rowId TEXT NOT NULL,
                    hlc INTEGER NOT NULL,
                    replica INTEGER NOT NULL REFERENCES replica(key),
                    version INTEGER NOT NULL,
                    PRIMARY KEY (accountId, entity, rowId)
                ) WITHOUT ROWID;
                CREATE INDEX tombstoneByVersion ON tombstone(accountId, version);

                CREATE TABLE heldRow (
                    accountId TEXT NOT NULL,
                    entity TEXT NOT NULL,
                    rowId TEXT NOT NULL,
                    waitingFor TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    row TEXT NOT NULL,
                    PRIMARY KEY (accountId, entity, rowId)
                ) WITHOUT ROWID;
                CREATE INDEX heldRowByParent ON heldRow(accountId, waitingFor);
                CREATE INDEX heldRowByVersion ON heldRow(accountId, version);

                CREATE TABLE changeBatch (
                    id INTEGER PRIMARY KEY,
                    accountId TEXT NOT NULL,
                    hlc INTEGER NOT NULL,
                    replica INTEGER NOT NULL REFERENCES replica(key),
                    origin TEXT NOT NULL CHECK (origin IN ('local', 'remote')),
                    summary TEXT NOT NULL
                );
                CREATE INDEX changeBatchByAccount ON changeBatch(accountId, id);

                -- Two devices may each create a deck of one name offline: both are kept after a merge,
                -- so the name is unique per device write (checked by the store), not by the schema.
                DROP INDEX deckName;
                CREATE INDEX deckName ON deck(accountId, nameKey);
                """)
        let ownReplica = "(SELECT key FROM replica WHERE id = (SELECT value FROM storeInfo WHERE key = 'replicaId'))"
        let lastWrite = "(SELECT COALESCE(MAX(hlc), 0) FROM changeLog)"
        let tables: [(String, String)] = [
            ("account", "createdAt << 16"), ("setting", lastWrite), ("deck", "modifiedAt << 16"),
            ("card", "modifiedAt << 16"), ("tag", "createdAt << 16"), ("cardTag", lastWrite),
            ("suggestion", "createdAt << 16"), ("rejectedSuggestion", "deletedAt << 16"),
            ("reviewLog", "reviewedAt << 16"), ("itemList", "modifiedAt << 16"), ("item", "modifiedAt << 16"),
            ("itemImage", "createdAt << 16"), ("board", "modifiedAt << 16"), ("boardColumn", "modifiedAt << 16"),
            ("boardCard", "modifiedAt << 16"),
        ]
        for (table, clock) in tables {
            try db.execute(
                sql: """
                    ALTER TABLE \(table) ADD COLUMN syncHlc INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE \(table) ADD COLUMN syncReplica INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE \(table) ADD COLUMN syncVersion INTEGER NOT NULL DEFAULT 0;
                    UPDATE \(table) SET syncHlc = \(clock), syncReplica = COALESCE(\(ownReplica), 0);
                    UPDATE \(table) SET syncVersion = syncHlc;
                    """)
            if table != "account" {
                try db.execute(sql: "CREATE INDEX \(table)BySyncVersion ON \(table)(accountId, syncVersion)")
            }
        }
        try db.execute(sql: "DROP TABLE changeLog")
    }

    /// Every sync asks which images its cards and suggestions name but lacks: without these
    /// (partial, so cards without an image cost nothing), that read every card of the store.
    static func indexImageHashes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX cardByImage ON card(accountId, imageHash) WHERE imageHash IS NOT NULL;
                CREATE INDEX suggestionByImage ON suggestion(accountId, imageHash) WHERE imageHash IS NOT NULL;
                """)
    }

    /// Sibling queries filter on the account and the parent: with the account first in the index, a
    /// query that walks siblings in order (a move to the 5,000th place) reads the index alone, instead
    /// of reading each row to check its account.
    static func scopeOrderIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX itemByPosition;
                CREATE INDEX itemByPosition ON item(accountId, listId, position, id);
                DROP INDEX itemImageByPosition;
                CREATE INDEX itemImageByPosition ON itemImage(accountId, itemId, position, id);
                DROP INDEX boardColumnByPosition;
                CREATE INDEX boardColumnByPosition ON boardColumn(accountId, boardId, position, id);
                DROP INDEX boardCardByPosition;
                CREATE INDEX boardCardByPosition ON boardCard(accountId, columnId, position, id);
                """)
    }

    /// The tables whose rows carry sync columns (every synced table but `account`).
    static let syncedTables = [
        "setting", "deck", "card", "tag", "cardTag", "suggestion", "rejectedSuggestion", "reviewLog", "itemList",
        "item", "itemImage", "board", "boardColumn", "boardCard",
    ]

    /// A device store holds one account, so the sync-version indexes need not repeat its 36-character
    /// id in every entry (100,000 cards with two tags each: 18 MB of these indexes become 6 MB); a
    /// query for another account's changes still filters on the row. Today's answers to new and to
    /// review cards per deck, which every study step counts for the daily limits, are each a range of
    /// one index, counted without reading a row or sorting.
    static func slimIndexes(_ db: Database) throws {
        for table in syncedTables {
            try db.execute(
                sql: """
                    DROP INDEX IF EXISTS \(table)BySyncVersion;
                    CREATE INDEX \(table)BySyncVersion ON \(table)(syncVersion);
                    """)
        }
        try db.execute(sql: "CREATE INDEX reviewLogAnswersByDeck ON reviewLog(deckId, stateBefore, reviewedAt)")
    }

    /// Each stored image's dimensions and thumbnail (seed 002: thumbnails for list views). Derived
    /// from the image on this device, never synced: images that arrive without one (an older
    /// store's, a snapshot's) get theirs when first asked for.
    static func addImageThumbnails(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE imageThumbnail (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    sha256 TEXT NOT NULL,
                    width INTEGER NOT NULL CHECK (width > 0),
                    height INTEGER NOT NULL CHECK (height > 0),
                    mimeType TEXT NOT NULL CHECK (mimeType IN ('image/jpeg', 'image/png')),
                    thumbnailWidth INTEGER NOT NULL,
                    thumbnailHeight INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (accountId, sha256)
                )
                """)
    }

    /// Seed 000's image pipeline: the failed attempts at a suggestion's image and when to try again.
    /// Local to the device (or server) that makes images; a suggestion without a row has not failed.
    static func addImageJobs(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE imageJob (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    suggestionId TEXT NOT NULL,
                    failures INTEGER NOT NULL CHECK (failures > 0),
                    nextAttemptAt INTEGER NOT NULL,
                    lastError TEXT NOT NULL,
                    PRIMARY KEY (accountId, suggestionId)
                )
                """)
    }

    /// A cloze card studies one deletion number of its text; other cards have none.
    static func addClozeNumbers(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE card ADD COLUMN clozeNumber INTEGER CHECK (clozeNumber BETWEEN 1 AND 999)")
    }

    /// A store file is one account's (a server keeps a file per account): the account is named once,
    /// in `storeInfo`, instead of on every row and at the head of most indexes (100,000 cards with
    /// two tags: a 36-character id in each of their 300,000 rows and of their index entries). Each
    /// table is made again without it and its rows copied (synced tables keep their rowids: change
    /// pages walk them in rowid order).
    static func dropAccountColumns(_ db: Database) throws {
        // The file's account; a file never opened by a store (migrated on its own) has one account row.
        let account = try String.fetchOne(
            db,
            sql: """
                SELECT COALESCE(
                    (SELECT value FROM storeInfo WHERE key = 'accountId'),
                    (SELECT id FROM account ORDER BY createdAt, id LIMIT 1))
                """)
        for (table, definition) in version11Tables {
            try db.execute(sql: "CREATE TABLE \(table)_v11 (\(definition))\(withoutRowID(table))")
            let columns = try db.columns(in: "\(table)_v11").map { "\"\($0.name)\"" }.joined(separator: ", ")
            // Rows of another account (a file opened for several: only tests did) are dropped.
            try db.execute(
                sql: """
                    INSERT INTO \(table)_v11 (\(columns)) SELECT \(columns) FROM \(table)
                    WHERE accountId IS ?
                    """, arguments: [account])
            try db.execute(sql: "DROP TABLE \(table)")
            try db.execute(sql: "ALTER TABLE \(table)_v11 RENAME TO \(table)")
        }
        try db.execute(sql: "DELETE FROM account WHERE id IS NOT ?", arguments: [account])
        try db.execute(sql: version11Indexes)
    }

    /// A table v12 makes again: whether it gets an integer key of its own (others name its rows by
    /// it), and which of its id columns become its parent's key (`deckId` → `deckKey`).
    private struct KeyedTable {
        let table: String
        let ownKey: Bool
        let references: [(column: String, parent: String)]

        var storedReferences: [String] { references.map { String($0.column.dropLast(2)) + "Key" } }
    }

    /// Parents before children.
    private static let version12Tables = [
        KeyedTable(table: "deck", ownKey: true, references: []),
        KeyedTable(table: "tag", ownKey: true, references: []),
        KeyedTable(table: "card", ownKey: true, references: [("deckId", "deck")]),
        KeyedTable(table: "suggestion", ownKey: false, references: [("deckId", "deck")]),
        KeyedTable(table: "rejectedSuggestion", ownKey: false, references: [("deckId", "deck")]),
        KeyedTable(table: "reviewLog", ownKey: false, references: [("cardId", "card"), ("deckId", "deck")]),
    ]

    /// Decks, cards and tags get an integer key (their rowid until now) beside their id, and the
    /// rows that name them in bulk name that key: a card, suggestion or rejected suggestion its
    /// deck, a review its card and deck, a tag link its card and tag. Each such reference was a
    /// 36-character id in the row and again in every index holding it (100,000 cards with two tags:
    /// the links alone were 51 MB of a 117 MB store; a card's four deck-led indexes each repeated
    /// the deck's id). Every row keeps its rowid, so change pages keep their order. A tag link is
    /// its two keys and its clock: a table without rowid, ordered by (card, tag), which change pages
    /// walk (`SyncedEntity.storageOrder`); a rowid would cost a third key and an index beside it. The
    /// wire still carries ids (`SyncedEntity.keyReferences`).
    ///
    /// A card list and the study queue order cards made at one moment (an import: 100,000 cards of
    /// one `createdAt`) by their key, which every index ends with, instead of by id, which took 36
    /// bytes in each of three indexes. Keys follow the order rows were stored in, here and on every
    /// device that pulls them (pages are sent in that order), as UUIDv7 ids did.
    static func addIntegerKeys(_ db: Database) throws {
        for keyed in version12Tables {
            try makeKeyedTable(keyed, db)
        }
        try db.execute(
            sql: """
                CREATE TABLE cardTag_v12 (
                    cardKey INTEGER NOT NULL REFERENCES card(key) ON DELETE CASCADE,
                    tagKey INTEGER NOT NULL REFERENCES tag(key) ON DELETE CASCADE,
                    \(syncColumns),
                    PRIMARY KEY (cardKey, tagKey)
                ) WITHOUT ROWID;
                INSERT INTO cardTag_v12 (cardKey, tagKey, syncHlc, syncReplica, syncVersion)
                SELECT card.key, tag.key, link.syncHlc, link.syncReplica, link.syncVersion
                FROM cardTag link JOIN card_v12 card ON card.id = link.cardId JOIN tag_v12 tag ON tag.id = link.tagId
                ORDER BY card.key, tag.key;
                DROP TABLE cardTag;
                """)
        for keyed in version12Tables.reversed() {
            try db.execute(sql: "DROP TABLE \(keyed.table)")
        }
        for table in version12Tables.map(\.table) + ["cardTag"] {
            try db.execute(sql: "ALTER TABLE \(table)_v12 RENAME TO \(table)")
            try db.execute(sql: "CREATE INDEX \(table)BySyncVersion ON \(table)(syncVersion)")
        }
        try db.execute(
            sql: """
                CREATE INDEX deckName ON deck(nameKey);
                CREATE INDEX cardByDeck ON card(deckKey, isArchived, createdAt);
                CREATE INDEX cardByFront ON card(deckKey, frontKey, cardType);
                CREATE INDEX cardQueue ON card(deckKey, isArchived, state, dueAt);
                CREATE INDEX cardNew ON card(deckKey, isArchived, state, createdAt);
                CREATE INDEX cardByImage ON card(imageHash) WHERE imageHash IS NOT NULL;
                CREATE UNIQUE INDEX tagName ON tag(nameKey);
                CREATE INDEX cardTagByTag ON cardTag(tagKey, cardKey);
                CREATE INDEX suggestionByDeck ON suggestion(deckKey, frontKey, cardType);
                CREATE INDEX suggestionByImage ON suggestion(imageHash) WHERE imageHash IS NOT NULL;
                CREATE INDEX rejectedByFront ON rejectedSuggestion(deckKey, frontKey, cardType);
                CREATE INDEX rejectedByDate ON rejectedSuggestion(deckKey, deletedAt);
                CREATE INDEX reviewLogByCard ON reviewLog(cardKey, reviewedAt);
                CREATE INDEX reviewLogByDeck ON reviewLog(deckKey, reviewedAt);
                CREATE INDEX reviewLogByTime ON reviewLog(reviewedAt);
                CREATE INDEX reviewLogAnswersByDeck ON reviewLog(deckKey, stateBefore, reviewedAt);
                """)
    }

    /// The study queue reads new cards by creation (`state = 'new'`) and the others by due time
    /// (`dueAt <= ?`), each through its own index, which held every card: a new card has no due
    /// time, so `cardQueue`'s entry for it served no read, and `cardNew` held cards that were no
    /// longer new. Partial indexes keep each card in the one index that finds it, and a new card's
    /// insert writes one index fewer. A read must name its index's condition for SQLite to use it:
    /// `state = 'new'` as written, or any comparison of `dueAt`, which implies it is not null.
    /// `cardNew` keeps the state among its columns although every entry's is 'new': this SQLite
    /// (3.40) reads the row to check the term otherwise, and counting a deck's new cards at every
    /// study step would read every new card's row instead of the index alone.
    static func narrowStudyIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX cardQueue;
                DROP INDEX cardNew;
                CREATE INDEX cardQueue ON card(deckKey, isArchived, state, dueAt) WHERE dueAt IS NOT NULL;
                CREATE INDEX cardNew ON card(deckKey, isArchived, state, createdAt) WHERE state = 'new';
                """)
    }

    /// A card's id is kept as its 16 bytes (`uid`, unique), and `id` is a virtual column giving the
    /// text every reader reads: 36 bytes in each row and again in the unique index were 4.4 MB of a
    /// 41 MB store of 100,000 cards. Written in plain SQL, so the sqlite3 shell and any reader of the
    /// file read ids as before; a lookup by id is `uid = cardbox_uuid_bytes(?)` (the store's own
    /// function: this SQLite has no `unhex`). The table is made again with its rows' keys, so
    /// references and change pages' order stay as they were.
    static func keepCardIdsAsBytes(_ db: Database) throws {
        guard let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'card'"),
            let open = definition.firstIndex(of: "(")
        else { preconditionFailure("v13 has no card table") }
        let id = "id TEXT NOT NULL UNIQUE,"
        precondition(definition.contains(id))
        let columns = definition[definition.index(after: open)...].replacingOccurrences(
            of: id,
            with:
                "uid BLOB NOT NULL UNIQUE CHECK (length(uid) = 16),\nid TEXT GENERATED ALWAYS AS (\(idText("uid"))) VIRTUAL,"
        )
        try db.execute(sql: "CREATE TABLE card_v14 (\(columns)")
        if let malformed = try String.fetchOne(
            db, sql: "SELECT id FROM card WHERE cardbox_uuid_bytes(id) IS NULL LIMIT 1")
        {
            throw DatabaseError(
                resultCode: .SQLITE_CONSTRAINT,
                message: "card id '\(malformed.prefix(60))' is not an id (8-4-4-4-12 lowercase hex digits)")
        }
        let copied = try db.columns(in: "card").map(\.name).filter { $0 != "id" }
        try db.execute(
            sql: """
                INSERT INTO card_v14 (uid, \(copied.joined(separator: ", ")))
                SELECT cardbox_uuid_bytes(id), \(copied.joined(separator: ", ")) FROM card ORDER BY key;
                DROP TABLE card;
                ALTER TABLE card_v14 RENAME TO card;
                CREATE INDEX cardBySyncVersion ON card(syncVersion);
                CREATE INDEX cardByDeck ON card(deckKey, isArchived, createdAt);
                CREATE INDEX cardByFront ON card(deckKey, frontKey, cardType);
                CREATE INDEX cardByImage ON card(imageHash) WHERE imageHash IS NOT NULL;
                CREATE INDEX cardQueue ON card(deckKey, isArchived, state, dueAt) WHERE dueAt IS NOT NULL;
                CREATE INDEX cardNew ON card(deckKey, isArchived, state, createdAt) WHERE state = 'new';
                """)
    }

    /// The study queue's daily limits need how many new cards and reviews a deck has been answered
    /// today; counting them from the review log at every queue grew with every answer of the day
    /// (15 % of a study session's instructions at 1,000 answers). `deckDayAnswers` keeps, per deck,
    /// the counts for one day's window, and triggers on the review log keep them right whoever
    /// writes it (an answer, an import's history, a sync, an undo): an answer adds to its deck's
    /// counts when it falls in the window, a removal takes away, and a change of a logged answer's
    /// deck, state or time drops the deck's counts, read again from the log when next needed. A
    /// local cache, never synced: a row is written by the answer that needs a new day's window, and
    /// a reader whose day is not the row's counts from the log as before.
    ///
    /// A snapshot may hold these and no other triggers (`openSnapshot` compares their SQL word for
    /// word, before migrating): a later migration that changes one keeps the text it replaces in
    /// this list, so snapshots of the release before still open. A migration that makes `reviewLog`
    /// again must make these triggers again.
    static let dayAnswerTriggers = [
        """
        CREATE TRIGGER deckDayAnswersOnInsert AFTER INSERT ON reviewLog BEGIN
            UPDATE deckDayAnswers
            SET newAnswered = newAnswered + (NEW.stateBefore = 'new'),
                reviewsAnswered = reviewsAnswered + (NEW.stateBefore = 'review')
            WHERE deckKey = NEW.deckKey AND NEW.reviewedAt >= dayStart AND NEW.reviewedAt < dayEnd;
        END
        """,
        """
        CREATE TRIGGER deckDayAnswersOnDelete AFTER DELETE ON reviewLog BEGIN
            UPDATE deckDayAnswers
            SET newAnswered = newAnswered - (OLD.stateBefore = 'new'),
                reviewsAnswered = reviewsAnswered - (OLD.stateBefore = 'review')
            WHERE deckKey = OLD.deckKey AND OLD.reviewedAt >= dayStart AND OLD.reviewedAt < dayEnd;
        END
        """,
        """
        CREATE TRIGGER deckDayAnswersOnUpdate AFTER UPDATE OF deckKey, stateBefore, reviewedAt ON reviewLog BEGIN
            DELETE FROM deckDayAnswers WHERE deckKey IN (OLD.deckKey, NEW.deckKey);
        END
        """,
    ]

    static func countDayAnswers(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE deckDayAnswers (
                    deckKey INTEGER PRIMARY KEY REFERENCES deck(key) ON DELETE CASCADE,
                    dayStart INTEGER NOT NULL,
                    dayEnd INTEGER NOT NULL,
                    newAnswered INTEGER NOT NULL,
                    reviewsAnswered INTEGER NOT NULL
                )
                """)
        for trigger in dayAnswerTriggers { try db.execute(sql: trigger) }
    }

    /// SQLite checks `column IN (three or more values)` by building a temporary b-tree of the values
    /// at every row it writes (a card's state, twice for a logged answer): a large part of a bulk
    /// import's inserts. Each such check becomes the same condition as comparisons joined by OR (an
    /// IN list of two is already compared so). Only the constraint's text changes, for the same
    /// condition on the same rows, so the definitions are rewritten in place, as SQLite's
    /// documentation allows for changing CHECK constraints (ALTER TABLE, "other kinds of table
    /// schema changes"), instead of copying every row into a new table. A definition without the
    /// check as v15 writes it is refused, changing nothing.
    static func compareNamedValues(_ db: Database) throws {
        let states = ["new", "learning", "review", "relearning"]
        let rewrites: [(table: String, column: String, values: [String])] = [
            ("card", "state", states),
            ("reviewLog", "stateBefore", states),
            ("reviewLog", "stateAfter", Array(states.dropFirst())),
            ("image", "mimeType", ["image/jpeg", "image/png", "image/heic"]),
            (
                "suggestion", "category",
                ["related_vocabulary", "usage_examples", "opposites", "progressive_complexity"]
            ),
        ]
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        defer { try? db.execute(sql: "PRAGMA writable_schema = OFF") }
        for (table, column, values) in rewrites {
            let definition =
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""
            let list = "(\(values.map { "'\($0)'" }.joined(separator: ", ")))"
            guard let check = inList(column, list, in: definition) else {
                throw DatabaseError(
                    resultCode: .SQLITE_CORRUPT, message: "table \(table) has no check \(column) IN \(list)")
            }
            var rewritten = definition
            rewritten.replaceSubrange(
                check, with: "(\(values.map { "\(column) = '\($0)'" }.joined(separator: " OR ")))")
            try db.execute(
                sql: "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                arguments: [rewritten, table])
        }
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
    }

    /// Until v17 a card's id text was a virtual column (`idText`), so that any reader of the file
    /// read `id` as before. SQLite computes a table's generated columns at every insert and update
    /// of a row, virtual ones too, and this one took eleven SQL function calls: 8 % of a CSV
    /// import's instructions. The store reads the text through `cardbox_uuid_text(uid)` instead
    /// (`Entity.selectExpression`); another reader of the file writes `lower(hex(uid))`. Dropping
    /// a virtual column rewrites no row.
    static func dropCardIdText(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE card DROP COLUMN id")
    }

    /// Cards made in one moment (an import, a cloze text's cards) share their creation time, and
    /// cards answered together may share a due time. Until v18 the store broke those ties by its
    /// own row key, the order this file happened to store them in: another device (a browser's
    /// replica, which has no such key) could offer another card first. Every device now breaks them
    /// by id, which a device mints in order (UUIDv7), so the order of making is kept; the indexes
    /// end with the id so that the queue and the deck's list still read them in order.
    static func orderTiesById(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX cardByDeck;
                DROP INDEX cardQueue;
                DROP INDEX cardNew;
                CREATE INDEX cardByDeck ON card(deckKey, isArchived, createdAt, uid);
                CREATE INDEX cardQueue ON card(deckKey, isArchived, state, dueAt, uid) WHERE dueAt IS NOT NULL;
                CREATE INDEX cardNew ON card(deckKey, isArchived, state, createdAt, uid) WHERE state = 'new';
                """)
    }

    /// Where `column IN list` is in a table's SQL, whatever white space comes before the list (a
    /// suggestion's category check breaks the line there).
    private static func inList(_ column: String, _ list: String, in definition: String) -> Range<String.Index>? {
        var from = definition.startIndex
        while let found = definition.range(of: "\(column) IN", range: from..<definition.endIndex) {
            let rest = definition[found.upperBound...].drop(while: \.isWhitespace)
            if rest.hasPrefix(list) { return found.lowerBound..<rest.index(rest.startIndex, offsetBy: list.count) }
            from = found.upperBound
        }
        return nil
    }

    /// SQL giving the stored text form of the 16-byte id in `column`: lowercase 8-4-4-4-12 hex digits
    /// (v14's virtual column; the store now reads ids with `cardbox_uuid_text`, which gives the same).
    static func idText(_ column: String) -> String {
        let groups = [(1, 4), (5, 2), (7, 2), (9, 2), (11, 6)].map { "hex(substr(\(column), \($0.0), \($0.1)))" }
        return "lower(\(groups.joined(separator: " || '-' || ")))"
    }

    /// Makes `table_v12` from the v11 definition and copies the rows in, each keeping its rowid.
    private static func makeKeyedTable(_ keyed: KeyedTable, _ db: Database) throws {
        guard var definition = version11Tables.first(where: { $0.key == keyed.table })?.value else {
            preconditionFailure("v11 has no table \(keyed.table)")
        }
        if keyed.ownKey {
            let id = "id TEXT PRIMARY KEY NOT NULL,"
            precondition(definition.hasPrefix(id))
            definition = "key INTEGER PRIMARY KEY,\nid TEXT NOT NULL UNIQUE," + definition.dropFirst(id.count)
        }
        for ((column, parent), stored) in zip(keyed.references, keyed.storedReferences) {
            let reference = "\(column) TEXT NOT NULL REFERENCES \(parent)(id) ON DELETE CASCADE,"
            precondition(definition.contains(reference))
            definition = definition.replacingOccurrences(
                of: reference, with: "\(stored) INTEGER NOT NULL REFERENCES \(parent)(key) ON DELETE CASCADE,")
        }
        let table = keyed.table
        try db.execute(sql: "CREATE TABLE \(table)_v12 (\(definition))")
        let copied = try db.columns(in: "\(table)_v12").map(\.name)
            .filter { $0 != "key" && !keyed.storedReferences.contains($0) }
        let parents = keyed.references.enumerated().map { index, reference in
            (alias: "p\(index)", reference.column, reference.parent)
        }
        let joins = parents.map { "JOIN \($0.2)_v12 \($0.alias) ON \($0.alias).id = old.\($0.1)" }
        let into = (keyed.ownKey ? ["key"] : ["rowid"]) + keyed.storedReferences + copied.map { "\"\($0)\"" }
        let values = ["old.rowid"] + parents.map { "\($0.alias).key" } + copied.map { "old.\"\($0)\"" }
        try db.execute(
            sql: """
                INSERT INTO \(table)_v12 (\(into.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM \(table) old \(joins.joined(separator: " "))
                ORDER BY old.rowid
                """)
    }

    private static func withoutRowID(_ table: String) -> String {
        ["fieldClock", "tombstone", "heldRow"].contains(table) ? " WITHOUT ROWID" : ""
    }

    private static let syncColumns = """
        syncHlc INTEGER NOT NULL DEFAULT 0,
        syncReplica INTEGER NOT NULL DEFAULT 0,
        syncVersion INTEGER NOT NULL DEFAULT 0
        """

    /// Parents before children, so each table's references name a table made already.
    private static let version11Tables: KeyValuePairs<String, String> = [
        "deck": """
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL CHECK (name <> ''),
        nameKey TEXT NOT NULL,
        frontLanguage TEXT NOT NULL CHECK (length(frontLanguage) = 2),
        backLanguage TEXT NOT NULL CHECK (length(backLanguage) = 2),
        queuedSuggestions INTEGER NOT NULL DEFAULT 0 CHECK (queuedSuggestions >= 0),
        desiredRetention REAL NOT NULL DEFAULT 0.9 CHECK (desiredRetention > 0 AND desiredRetention < 1),
        learningSteps TEXT NOT NULL DEFAULT '1m,10m',
        relearningSteps TEXT NOT NULL DEFAULT '10m',
        maximumInterval INTEGER NOT NULL DEFAULT 36500 CHECK (maximumInterval >= 1),
        newCardsPerDay INTEGER NOT NULL DEFAULT 20 CHECK (newCardsPerDay >= 0),
        reviewsPerDay INTEGER NOT NULL DEFAULT 200 CHECK (reviewsPerDay >= 0),
        fsrsParameters TEXT,
        enableFuzz INTEGER NOT NULL DEFAULT 1 CHECK (enableFuzz IN (0, 1)),
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "card": """
        id TEXT PRIMARY KEY NOT NULL,
        deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
        front TEXT NOT NULL CHECK (front <> ''),
        frontKey TEXT NOT NULL,
        back TEXT NOT NULL,
        cardType TEXT NOT NULL CHECK (cardType <> ''),
        clozeNumber INTEGER CHECK (clozeNumber BETWEEN 1 AND 999),
        notes TEXT NOT NULL DEFAULT '',
        frontLanguage TEXT NOT NULL,
        backLanguage TEXT NOT NULL,
        isFavorite INTEGER NOT NULL DEFAULT 0 CHECK (isFavorite IN (0, 1)),
        imageHash TEXT,
        imagePrompt TEXT,
        jsonContent TEXT,
        isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1)),
        archivedAt INTEGER,
        isIncomplete INTEGER NOT NULL DEFAULT 0 CHECK (isIncomplete IN (0, 1)),
        dueAt INTEGER,
        state TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'learning', 'review', 'relearning')),
        step INTEGER CHECK (step >= 0),
        stability REAL CHECK (stability > 0),
        difficulty REAL CHECK (difficulty BETWEEN 1 AND 10),
        lastReviewAt INTEGER,
        reps INTEGER NOT NULL DEFAULT 0 CHECK (reps >= 0),
        lapses INTEGER NOT NULL DEFAULT 0 CHECK (lapses >= 0),
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns),
        CHECK ((isArchived = 1) = (archivedAt IS NOT NULL))
        """,
        "tag": """
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL CHECK (name <> ''),
        nameKey TEXT NOT NULL,
        createdAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "cardTag": """
        cardId TEXT NOT NULL REFERENCES card(id) ON DELETE CASCADE,
        tagId TEXT NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
        \(syncColumns),
        PRIMARY KEY (cardId, tagId)
        """,
        "suggestion": """
        id TEXT PRIMARY KEY NOT NULL,
        deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
        front TEXT NOT NULL CHECK (front <> ''),
        frontKey TEXT NOT NULL,
        back TEXT NOT NULL,
        cardType TEXT NOT NULL CHECK (cardType <> ''),
        imagePrompt TEXT,
        context TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL CHECK (category IN
            ('related_vocabulary', 'usage_examples', 'opposites', 'progressive_complexity')),
        isVisible INTEGER NOT NULL DEFAULT 0 CHECK (isVisible IN (0, 1)),
        imageHash TEXT,
        createdAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "rejectedSuggestion": """
        id TEXT PRIMARY KEY NOT NULL,
        deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
        front TEXT NOT NULL CHECK (front <> ''),
        frontKey TEXT NOT NULL,
        cardType TEXT NOT NULL CHECK (cardType <> ''),
        deletedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "reviewLog": """
        id TEXT PRIMARY KEY NOT NULL,
        cardId TEXT NOT NULL REFERENCES card(id) ON DELETE CASCADE,
        deckId TEXT NOT NULL REFERENCES deck(id) ON DELETE CASCADE,
        rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        reviewedAt INTEGER NOT NULL,
        stateBefore TEXT NOT NULL CHECK (stateBefore IN ('new', 'learning', 'review', 'relearning')),
        stateAfter TEXT NOT NULL CHECK (stateAfter IN ('learning', 'review', 'relearning')),
        elapsedDays INTEGER NOT NULL CHECK (elapsedDays >= 0),
        durationMs INTEGER CHECK (durationMs >= 0),
        previous TEXT NOT NULL,
        \(syncColumns)
        """,
        "image": """
        sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),
        mimeType TEXT NOT NULL CHECK (mimeType IN ('image/jpeg', 'image/png', 'image/heic')),
        byteCount INTEGER NOT NULL CHECK (byteCount BETWEEN 1 AND 5242880),
        data BLOB NOT NULL,
        createdAt INTEGER NOT NULL
        """,
        "imageThumbnail": """
        sha256 TEXT PRIMARY KEY NOT NULL,
        width INTEGER NOT NULL CHECK (width > 0),
        height INTEGER NOT NULL CHECK (height > 0),
        mimeType TEXT NOT NULL CHECK (mimeType IN ('image/jpeg', 'image/png')),
        thumbnailWidth INTEGER NOT NULL,
        thumbnailHeight INTEGER NOT NULL,
        data BLOB NOT NULL
        """,
        "imageJob": """
        suggestionId TEXT PRIMARY KEY NOT NULL,
        failures INTEGER NOT NULL CHECK (failures > 0),
        nextAttemptAt INTEGER NOT NULL,
        lastError TEXT NOT NULL
        """,
        "itemList": """
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL CHECK (name <> ''),
        position TEXT NOT NULL,
        isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1)),
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "item": """
        id TEXT PRIMARY KEY NOT NULL,
        listId TEXT NOT NULL REFERENCES itemList(id) ON DELETE CASCADE,
        title TEXT NOT NULL CHECK (title <> ''),
        description TEXT NOT NULL DEFAULT '',
        quantity INTEGER CHECK (quantity BETWEEN -2147483648 AND 2147483647),
        position TEXT NOT NULL,
        isCrossedOut INTEGER NOT NULL DEFAULT 0 CHECK (isCrossedOut IN (0, 1)),
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "itemImage": """
        id TEXT PRIMARY KEY NOT NULL,
        itemId TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
        imageHash TEXT NOT NULL,
        position TEXT NOT NULL,
        createdAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "board": """
        id TEXT PRIMARY KEY NOT NULL,
        boardTitle TEXT NOT NULL CHECK (boardTitle <> ''),
        nameKey TEXT NOT NULL,
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "boardColumn": """
        id TEXT PRIMARY KEY NOT NULL,
        boardId TEXT NOT NULL REFERENCES board(id) ON DELETE CASCADE,
        listTitle TEXT NOT NULL CHECK (listTitle <> ''),
        position TEXT NOT NULL,
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "boardCard": """
        id TEXT PRIMARY KEY NOT NULL,
        columnId TEXT NOT NULL REFERENCES boardColumn(id) ON DELETE CASCADE,
        cardTitle TEXT NOT NULL CHECK (cardTitle <> ''),
        cardDescription TEXT,
        position TEXT NOT NULL,
        isArchived INTEGER NOT NULL DEFAULT 0 CHECK (isArchived IN (0, 1)),
        createdAt INTEGER NOT NULL,
        modifiedAt INTEGER NOT NULL,
        \(syncColumns)
        """,
        "setting": """
        key TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL,
        \(syncColumns)
        """,
        "usageEvent": """
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        occurredAt INTEGER NOT NULL,
        cardLanguage TEXT,
        hasTags INTEGER CHECK (hasTags IN (0, 1)),
        tagCount INTEGER
        """,
        "fieldClock": """
        entity TEXT NOT NULL,
        rowId TEXT NOT NULL,
        field TEXT NOT NULL,
        hlc INTEGER NOT NULL,
        replica INTEGER NOT NULL REFERENCES replica(key),
        PRIMARY KEY (entity, rowId, field)
        """,
        "tombstone": """
        entity TEXT NOT NULL,
        rowId TEXT NOT NULL,
        hlc INTEGER NOT NULL,
        replica INTEGER NOT NULL REFERENCES replica(key),
        version INTEGER NOT NULL,
        PRIMARY KEY (entity, rowId)
        """,
        "heldRow": """
        entity TEXT NOT NULL,
        rowId TEXT NOT NULL,
        waitingFor TEXT NOT NULL,
        version INTEGER NOT NULL,
        row TEXT NOT NULL,
        PRIMARY KEY (entity, rowId)
        """,
        "changeBatch": """
        id INTEGER PRIMARY KEY,
        hlc INTEGER NOT NULL,
        replica INTEGER NOT NULL REFERENCES replica(key),
        origin TEXT NOT NULL CHECK (origin IN ('local', 'remote')),
        summary TEXT NOT NULL
        """,
    ]

    /// Each index serves a query that would otherwise read the whole table (see docs/store.md);
    /// tables that hold a handful of rows (lists, boards) have none but their keys'.
    private static let version11Indexes = """
        CREATE INDEX deckName ON deck(nameKey);
        CREATE INDEX cardByDeck ON card(deckId, isArchived, createdAt, id);
        CREATE INDEX cardByFront ON card(deckId, frontKey, cardType);
        CREATE INDEX cardQueue ON card(deckId, isArchived, state, dueAt, id);
        CREATE INDEX cardNew ON card(deckId, isArchived, state, createdAt, id);
        CREATE INDEX cardByImage ON card(imageHash) WHERE imageHash IS NOT NULL;
        CREATE UNIQUE INDEX tagName ON tag(nameKey);
        CREATE INDEX cardTagByTag ON cardTag(tagId);
        CREATE INDEX suggestionByDeck ON suggestion(deckId, frontKey, cardType);
        CREATE INDEX suggestionByImage ON suggestion(imageHash) WHERE imageHash IS NOT NULL;
        CREATE INDEX rejectedByFront ON rejectedSuggestion(deckId, frontKey, cardType);
        CREATE INDEX rejectedByDate ON rejectedSuggestion(deckId, deletedAt);
        CREATE INDEX reviewLogByCard ON reviewLog(cardId, reviewedAt);
        CREATE INDEX reviewLogByDeck ON reviewLog(deckId, reviewedAt);
        CREATE INDEX reviewLogByTime ON reviewLog(reviewedAt);
        CREATE INDEX reviewLogAnswersByDeck ON reviewLog(deckId, stateBefore, reviewedAt);
        CREATE INDEX itemByPosition ON item(listId, position, id);
        CREATE INDEX itemImageByPosition ON itemImage(itemId, position, id);
        CREATE INDEX boardColumnByPosition ON boardColumn(boardId, position, id);
        CREATE INDEX boardCardByPosition ON boardCard(columnId, position, id);
        CREATE INDEX usageEventByName ON usageEvent(name);
        CREATE INDEX tombstoneByVersion ON tombstone(version);
        CREATE INDEX heldRowByParent ON heldRow(waitingFor);
        CREATE INDEX heldRowByVersion ON heldRow(version);
        """ + syncedTables.map { "CREATE INDEX \($0)BySyncVersion ON \($0)(syncVersion);" }.joined(separator: "\n")
}
