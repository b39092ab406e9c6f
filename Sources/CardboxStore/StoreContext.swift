import CardboxCore
import CardboxImaging
import CardboxSync
import Crypto
import Foundation
import GRDB

/// A read of the store: its database and its account (the file's: one account per store file).
struct StoreContext {
    let db: Database
    let accountId: UUID
    /// Where study days begin and end: the environment's zone, or (`followsAccountTimeZone`) the
    /// account's `timeZone` setting where it has one.
    var timeZone: TimeZone = .current
    var followsAccountTimeZone = false
    var account: String { accountId.storage }

    init(db: Database, accountId: UUID, environment: StoreEnvironment) {
        self.db = db
        self.accountId = accountId
        timeZone = environment.timeZone
        followsAccountTimeZone = environment.followsAccountTimeZone
    }

    /// The zone study days are counted in, given the account's settings.
    func studyTimeZone(_ settings: UserSettings) -> TimeZone {
        guard followsAccountTimeZone, let zone = settings.timeZone.flatMap(TimeZone.init(identifier:)) else {
            return timeZone
        }
        return zone
    }

    /// Finds the id of a record named by a person: its id, its exact name (a deck's, list's, board's
    /// or column's), a unique start or end of its id, or its exact text (a card's front, an item's
    /// title: `Entity.nameColumn`; decks also case-insensitively). A short id names its record before
    /// any card's or item's text does.
    func resolve(_ reference: String, _ entity: Entity) throws -> String {
        let trimmed = reference.trimmedWhitespace
        guard !trimmed.isEmpty else {
            throw CardboxError.invalid(field: entity.kind, reason: "needs an id or a name")
        }
        let table = entity.rawValue
        let id = entity.idExpression
        if let id = try String.fetchOne(
            db.cachedStatement(sql: "SELECT \(id) FROM \(table) WHERE \(entity.binding("id"))"),
            arguments: [trimmed.lowercased()])
        {
            return id
        }
        if let nameColumn = entity.nameColumn, !entity.isNamedByText, let id = try named(trimmed, entity, nameColumn) {
            return id
        }
        // Ids are time-ordered (UUIDv7): records made together share their first digits, so people
        // are shown the random last digits. Either end of an id names it, when only one id has it.
        let fragment = trimmed.lowercased()
        if fragment.count >= 4, fragment.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            // Ids kept as bytes are matched on their hex digits first, which reads the id index
            // alone; only the rows that match have their text made.
            let condition = entity.keepsIdAsBytes ? "hex(uid) LIKE ?2 AND \(id) LIKE ?1" : "id LIKE ?1"
            let order = entity.storedColumn("id")  // bytes sort as their text
            for pattern in [fragment + "%", "%" + fragment] {
                let ids = try String.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT \(id) FROM \(table) WHERE \(condition) ORDER BY \(order) LIMIT 6"),
                    arguments: entity.keepsIdAsBytes
                        ? [pattern, pattern.replacingOccurrences(of: "-", with: "")] : [pattern])
                if ids.count == 1 { return ids[0] }
                if ids.count > 1 {
                    throw CardboxError.ambiguous(kind: entity.kind, reference: trimmed, candidates: ids)
                }
            }
        }
        // A card's front or an item's title comes after the short ids: a short id a script printed
        // keeps naming its record whatever text another record holds.
        if let nameColumn = entity.nameColumn, entity.isNamedByText, let id = try named(trimmed, entity, nameColumn) {
            return id
        }
        throw CardboxError.notFound(kind: entity.kind, reference: trimmed)
    }

    /// The one record of `entity` whose name is `name` (a deck's also in any case); ambiguous when
    /// several are.
    private func named(_ name: String, _ entity: Entity, _ nameColumn: String) throws -> String? {
        var ids = try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(entity.idExpression) FROM \(entity.table) WHERE \(nameColumn) = ?
                    ORDER BY \(entity.storedColumn("id")) LIMIT 6
                    """),
            arguments: [name])
        if ids.isEmpty && entity == .deck {
            ids = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM deck WHERE nameKey = ? LIMIT 6"),
                arguments: [Self.nameKey(name)])
        }
        if ids.count > 1 { throw CardboxError.ambiguous(kind: entity.kind, reference: name, candidates: ids) }
        return ids.first
    }

    /// The stored id of a record the caller names by its typed id, once it is known to exist in this
    /// store.
    func existing<Record>(_ id: TypedID<Record>, _ entity: Entity) throws -> String {
        let stored = id.storage
        guard
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM \(entity.rawValue) WHERE \(entity.binding("id"))"),
                arguments: [stored]) != nil
        else { throw CardboxError.notFound(kind: entity.kind, reference: stored) }
        return stored
    }

    func count(_ sql: String, _ arguments: StatementArguments) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? 0
    }

    /// The 0-based place of a row among its siblings: derived from the position order, so it is
    /// always 0…n−1 and unique, whatever order moves arrive in.
    func orderNumber(_ entity: Entity, parentId: String?, position: String, id: String) throws -> Int {
        let (scope, arguments) = siblingScope(entity, parentId: parentId)
        return try count(
            "SELECT COUNT(*) FROM \(entity.rawValue) WHERE \(scope) AND (position < ? OR (position = ? AND id < ?))",
            arguments + [position, position, id])
    }

    func siblingScope(_ entity: Entity, parentId: String?) -> (String, StatementArguments) {
        if let parentColumn = entity.ordering?.parentColumn {
            return ("\(parentColumn) = ?", [parentId])
        }
        return ("1", [])
    }

    static func nameKey(_ name: String) -> String { TagName.normalize(name) }
}

/// One write transaction: the scoped database, the transaction's time and HLC timestamp, and the
/// capture of every row it writes (see `ChangeCapture.swift`).
final class WriteContext {
    let context: StoreContext
    let replicaId: String
    /// The local replica's key in the `replica` table: what rows store instead of the id text.
    let replicaKey: Int64
    let now: Date
    let timestamp: HLCTimestamp
    private let environment: StoreEnvironment
    private var random: AnyRandomNumberGenerator
    /// What the transaction wrote, for the history shown to people: one `changeBatch` row at commit.
    var batch = BatchSummary()
    /// Prepared inserts of this transaction, by table and column list.
    var inserters: [StatementKey: RowInserter] = [:]
    /// Entities known to have no tombstones in this account, so re-creating a named row (a tag, a
    /// tag link) need not look for one to clear.
    var entitiesWithoutTombstones: Set<Entity> = []
    /// Whether the account holds rows aside, once asked (see `supersedeHeld`).
    var heldRowsExist: Bool?
    /// Name-derived rows this transaction made again, whose held children it places at the end.
    var madeAgain: [RecordKey] = []
    /// Images decoded before the transaction began (`CardboxStore.write(decodingImages:)`), by their bytes.
    var decodedImages: [Data: IngestedImage] = [:]

    init(
        db: Database, accountId: UUID, replicaId: String, replicaKey: Int64, now: Date, timestamp: HLCTimestamp,
        environment: StoreEnvironment
    ) {
        self.context = StoreContext(db: db, accountId: accountId, environment: environment)
        self.replicaId = replicaId
        self.replicaKey = replicaKey
        self.now = now
        self.timestamp = timestamp
        self.environment = environment
        self.random = AnyRandomNumberGenerator(base: environment.makeRandom())
    }

    var db: Database { context.db }
    var account: String { context.account }
    var nowMillis: Int64 { now.storageMillis }

    func newID() -> String { environment.newID().storage }

    func newUUID() -> UUID { environment.newID() }

    // MARK: Order

    /// A position key that places a row at `index` (0-based) among its siblings, the row itself left
    /// out; nil index appends at the end.
    func position(_ entity: Entity, parentId: String?, at index: Int?, excluding id: String? = nil) throws -> String {
        let (scope, arguments) = context.siblingScope(entity, parentId: parentId)
        let table = entity.rawValue
        let others = arguments + [id ?? ""]
        guard let index else {
            let last = try String.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT position FROM \(table) WHERE \(scope) AND id <> ? ORDER BY position DESC, id DESC LIMIT 1"
                ),
                arguments: others)
            return try PositionKey.between(last, nil, using: &random)
        }
        // The neighbours are read straight off the (parent, position, id) index; siblings are
        // counted only to say what the range is when `index` is outside it.
        let neighbours =
            index < 0
            ? []
            : try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT position FROM \(table) WHERE \(scope) AND id <> ? ORDER BY position, id LIMIT ? OFFSET ?
                        """),
                arguments: others + [index == 0 ? 1 : 2, max(0, index - 1)])
        if index < 0 || (index > 0 && neighbours.isEmpty) {
            let siblings = try context.count("SELECT COUNT(*) FROM \(table) WHERE \(scope) AND id <> ?", others)
            throw CardboxError.invalid(field: "position", reason: "must be 0 to \(siblings), got \(index)")
        }
        let before = index == 0 ? nil : neighbours.first
        let after = index == 0 ? neighbours.first : neighbours.dropFirst().first
        if let before, let after, before >= after {
            // Two devices minted the same key: lay the siblings out anew, then place between them.
            try respace(entity, parentId: parentId, excluding: id)
            return try position(entity, parentId: parentId, at: index, excluding: id)
        }
        return try PositionKey.between(before, after, using: &random)
    }

    private func respace(_ entity: Entity, parentId: String?, excluding id: String?) throws {
        let (scope, arguments) = context.siblingScope(entity, parentId: parentId)
        let ids = try String.fetchAll(
            db.cachedStatement(
                sql: "SELECT id FROM \(entity.rawValue) WHERE \(scope) AND id <> ? ORDER BY position, id"),
            arguments: arguments + [id ?? ""])
        let field = entity.ordering.flatMap { entity.field(named: $0.field) }
        for (sibling, key) in zip(ids, PositionKey.sequence(count: ids.count)) {
            var writes = [ColumnWrite(column: "position", field: field, value: key)]
            if let parentColumn = entity.ordering?.parentColumn {
                writes.insert(ColumnWrite(column: parentColumn, field: field, value: parentId), at: 0)
            }
            try updateRow(entity, id: sibling, writes)
        }
    }

    // MARK: Images

    /// Stores image bytes, as decoded and checked before the transaction (seed 002's rules, and the
    /// decoder's: a damaged, truncated or oversized image was refused there; one larger than
    /// `ImagePolicy.maximumSide` shrunk), once per content (SHA-256) with its thumbnail.
    func storeImage(_ data: Data) throws -> (hash: String, format: ImageFormat) {
        let image = try decodedImage(data)
        let hash = sha256Hex(image.data)
        try StoredImages.save(image, sha256: hash, now: nowMillis, db)
        return (hash, image.format)
    }

    /// Bytes decoded before the transaction began.
    func decodedImage(_ data: Data) throws -> IngestedImage {
        guard let image = decodedImages[data] else {
            throw CardboxError.storage("an image reached a write without being decoded first")
        }
        return image
    }

    /// Deletes stored images that no card, suggestion or item image refers to any more.
    func collectImages(_ hashes: some Sequence<String>) throws {
        for hash in Set(hashes) {
            try db.execute(
                sql: """
                    DELETE FROM image WHERE sha256 = ?1
                      AND NOT EXISTS (SELECT 1 FROM card WHERE imageHash = ?1)
                      AND NOT EXISTS (SELECT 1 FROM suggestion WHERE imageHash = ?1)
                      AND NOT EXISTS (SELECT 1 FROM itemImage WHERE imageHash = ?1)
                    """, arguments: [hash])
            try db.execute(
                sql: """
                    DELETE FROM imageThumbnail WHERE sha256 = ?1
                      AND NOT EXISTS (SELECT 1 FROM image WHERE sha256 = ?1)
                    """, arguments: [hash])
        }
    }

    // MARK: Usage events

    /// Seed 001's analytics, kept locally: the event and its language/tag properties, no card content.
    func logEvent(_ name: UsageEventName, cardLanguage: String? = nil, tagCount: Int? = nil) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO usageEvent (name, occurredAt, cardLanguage, hasTags, tagCount) VALUES (?, ?, ?, ?, ?)
                """
        ).execute(arguments: [name.rawValue, nowMillis, cardLanguage, tagCount.map { $0 > 0 }, tagCount])
    }
}

/// Lets an injected generator of any type be passed where a concrete one is needed.
struct AnyRandomNumberGenerator: RandomNumberGenerator {
    var base: any RandomNumberGenerator
    mutating func next() -> UInt64 { base.next() }
}

extension StoreContext {
    /// The SQL condition choosing rows of `entity` in one deck (`deckId`) when given, else every
    /// row, with its arguments: the deck must exist.
    func deckScope(_ deckReference: DeckID?, of entity: Entity) throws -> (sql: String, arguments: StatementArguments) {
        var sql = "1"
        var arguments: StatementArguments = []
        if let deckReference {
            sql += " AND \(entity.binding("deckId"))"
            arguments += [try existing(deckReference, .deck)]
        }
        return (sql, arguments)
    }
}
