import CSQLiteSettings
import CardboxCore
import CardboxImaging
import CardboxSync
import Foundation
import GRDB

/// What the store asks of the outside world, injected so tests are exact.
public struct StoreEnvironment: Sendable {
    public var now: @Sendable () -> Date
    public var newID: @Sendable () -> UUID
    /// Randomness for position-key jitter.
    public var makeRandom: @Sendable () -> any RandomNumberGenerator
    /// Where study days start and end (local time).
    public var timeZone: TimeZone
    /// Decodes and checks image bytes (`ImageIngest.ingest`: an image worker process). Always called
    /// before a write takes the store's writer, never inside one.
    public var decodeImage: @Sendable (_ data: Data, _ field: String, _ keepBytes: Bool) throws -> IngestedImage = {
        try ImageIngest.ingest($0, field: $1, keepBytes: $2)
    }
    /// Whether the account's `timeZone` setting, where it has one, wins over `timeZone`: a copy of
    /// the account kept on a server, whose own zone is not the person's.
    public var followsAccountTimeZone: Bool
    /// Told when opening a store file made by an earlier version upgrades its layout, before and
    /// after: a large store takes seconds (100,000 cards: about 6 s for v11), which a command says.
    public var upgrading: (@Sendable (StoreUpgrade) -> Void)?

    public init(
        now: @escaping @Sendable () -> Date, newID: @escaping @Sendable () -> UUID,
        makeRandom: @escaping @Sendable () -> any RandomNumberGenerator, timeZone: TimeZone = .current,
        followsAccountTimeZone: Bool = false
    ) {
        self.now = now
        self.newID = newID
        self.makeRandom = makeRandom
        self.timeZone = timeZone
        self.followsAccountTimeZone = followsAccountTimeZone
    }

    /// The real clock, time-ordered ids (UUIDv7) and system randomness.
    public static var live: StoreEnvironment {
        let ids = UUIDv7Generator()
        return StoreEnvironment(
            now: { Date() }, newID: { ids.next() }, makeRandom: { SystemRandomNumberGenerator() })
    }
}

/// The two moments of a store's upgrade to this version's layout (`StoreEnvironment.upgrading`).
public enum StoreUpgrade: Sendable, Equatable {
    case started
    case finished(after: Duration)
}

/// The Cardbox store: one account's decks, lists and boards in SQLite (WAL), every mutation one
/// transaction that also records what sync needs: clocks per row and field, and tombstones.
///
/// A store file holds one account (named in `storeInfo`; a server keeps a file per account): opening
/// it for another is refused.
public final class CardboxStore: Sendable {
    let file: StoreFile
    var writer: any DatabaseWriter { file.writer }
    public let accountId: UUID
    public let replicaId: String
    /// The local replica's key in the `replica` table.
    let replicaKey: Int64
    let environment: StoreEnvironment

    init(file: StoreFile, account: UUID?, environment: StoreEnvironment) throws {
        self.file = file
        self.environment = environment
        let writer = file.writer
        let upgrade = try file.path == nil ? Schema.Upgrade.none : writer.read(Schema.upgrade)
        if upgrade.isPending { environment.upgrading?(.started) }
        let started = ContinuousClock.now
        try Schema.migrator.migrate(writer)
        if upgrade.rebuildsTables { try writer.vacuum() }
        if upgrade.isPending { environment.upgrading?(.finished(after: started.duration(to: .now))) }
        if let known = try writer.read({ db in try Self.identity(db, account: account) }) {
            // The common case, a store opened before: read only, so a read-only command writes nothing.
            (accountId, replicaId, replicaKey) = known
            return
        }
        (accountId, replicaId, replicaKey) = try writer.write { db in
            let replica = try Self.storeInfo(
                db, key: "replicaId", orInsert: environment.newID().uuidString.lowercased())
            let stored = try Self.storeInfo(
                db, key: "accountId", orInsert: (account ?? environment.newID()).uuidString.lowercased())
            let accountId = try Self.fileAccount(stored, opening: account)
            try db.execute(
                sql: "INSERT INTO account (id, createdAt) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                arguments: [accountId.storage, environment.now().storageMillis])
            return (accountId, replica, try Self.replicaKey(db, replica))
        }
    }

    /// How many readers a store opened with concurrent reads keeps, and each connection's page
    /// cache: a device's store runs large imports and syncs (a 16 MiB cache; SQLite's default of
    /// 2 MiB spills a large batch to the log mid-transaction); a server keeps dozens of accounts'
    /// copies open at once, each small, so each gets fewer readers and SQLite's default cache.
    public struct Connections: Sendable {
        public var readers: Int
        public var cacheKiB: Int

        public static let device = Connections(readers: 5, cacheKiB: 16_384)
        public static let serverCopy = Connections(readers: 2, cacheKiB: 2_048)
    }

    /// SQLite's process-wide settings: no memory statistics, which Cardbox never reads and SQLite
    /// otherwise keeps under a process-wide mutex at every allocation. Best effort: SQLite takes
    /// them only before the process's first connection (after it, it refuses them and keeps its
    /// defaults, which work the same, only slower), and only while no other thread is in SQLite.
    /// `cardbox` calls it first thing; opening a store calls it too, for other programs.
    public static func prepareSQLite() { _ = sqliteSettings }

    private static let sqliteSettings: Int32 = cbx_sqlite_skip_memory_statistics()

    /// Opens (creating if needed) the store file at `path`, for `account` or the file's own account.
    /// With `concurrentReads` (a server, a long-running sync) reads run beside writes on their own
    /// connections (`connections.readers` at most); without, one connection serves everything,
    /// which a short command opens faster.
    public static func open(
        path: String, account: UUID? = nil, environment: StoreEnvironment = .live, concurrentReads: Bool = true,
        connections: Connections = .device
    ) throws -> CardboxStore {
        prepareSQLite()
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            // A store holds a person's data (and, signed in, the device's token): readable by its
            // owner only. SQLite gives its log files the store file's permissions.
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(
                    atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.maximumReaderCount = connections.readers
            configuration.prepareDatabase { db in
                // A device's 16 MiB page cache (SQLite's default is 2 MiB): a large batch otherwise
                // spills pages to the WAL mid-transaction and writes them again at commit.
                try db.execute(sql: "PRAGMA cache_size = -\(connections.cacheKiB)")
                // One durability however the store is opened (a pool set this, a single connection on
                // an existing file kept SQLite's FULL): with the write-ahead log, a commit survives the
                // process dying, a power cut may take back the last few, and the file stays whole. A
                // sync loses nothing either way: cursors roll back with the data they describe, and
                // what is sent or fetched again merges to the same.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                CardboxStore.addFunctions(to: db)
            }
            // A store is put in WAL mode when it is created, and the file remembers it; setting it
            // again on every open of a single connection would cost a small write (GRDB makes sure
            // the log exists; a pool sets WAL mode itself). Asked at each open: a store opened
            // again after a snapshot took its place (in WAL mode already) is not a new one. An empty
            // file (left by a store whose creation was cut short) is a new one too: every store runs
            // in WAL mode, where `synchronous = NORMAL` is safe.
            let open: @Sendable () throws -> any DatabaseWriter = { [configuration] in
                if concurrentReads { return try DatabasePool(path: path, configuration: configuration) }
                var single = configuration
                if (StoreFile.size(atPath: path) ?? 0) == 0 { single.journalMode = .wal }
                return try DatabaseQueue(path: path, configuration: single)
            }
            let file = StoreFile(writer: try open(), path: path, reopen: open)
            return try CardboxStore(file: file, account: account, environment: environment)
        } catch let error as DatabaseError {
            throw CardboxError.storage("cannot open store at \(path): \(error.message ?? error.description)")
        } catch let error as CardboxError {
            throw error
        } catch {
            throw CardboxError.storage("cannot open store at \(path): \(error.localizedDescription)")
        }
    }

    /// Folds the write-ahead log back into the store file and empties it, so a large import does not
    /// leave a log as large as the store beside it (SQLite does this when the last connection closes,
    /// which a process that exits skips). Cheap when the log is already small.
    public func checkpoint() throws {
        // Most commands leave an empty log (a read, or a write SQLite has folded already): nothing to do.
        let log = StoreFile.size(atPath: writer.path + "-wal") ?? 0
        guard log > 0 else { return }
        try translatingErrors {
            try writer.writeWithoutTransaction { db in
                if db.configuration.readonly == false, try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                    try db.checkpoint(.truncate)
                }
            }
        }
    }

    /// A store that lives in memory only, for tests and simulations.
    public static func inMemory(account: UUID? = nil, environment: StoreEnvironment = .live) throws -> CardboxStore {
        prepareSQLite()
        var configuration = Configuration()
        configuration.prepareDatabase { db in CardboxStore.addFunctions(to: db) }
        let queue = try DatabaseQueue(configuration: configuration)
        try migratedTemplate.get().backup(to: queue)
        return try CardboxStore(
            file: StoreFile(writer: queue, path: nil, reopen: nil), account: account, environment: environment)
    }

    /// SQL functions the store's queries use: `cardbox_folded(text)`, the text folded as card
    /// search folds it (`CardSearch.folded`; SQLite's own lower() and LIKE fold ASCII letters only); and
    /// `cardbox_uuid_bytes(text)` and `cardbox_uuid_text(bytes)`, an id's two stored forms, for the
    /// tables that keep ids as bytes (`SyncedEntity.keepsIdAsBytes`). This SQLite (3.40) has no
    /// `unhex`.
    static func addFunctions(to db: Database) {
        db.add(
            function: DatabaseFunction("cardbox_folded", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).map(CardSearch.folded)
            })
        StoredID.addFunctions(to: db)
    }

    /// An empty database with every migration run, copied into each new in-memory store. Running the
    /// migrations takes about 50 ms (SQLite parses the whole schema again after each ALTER TABLE);
    /// copying their result takes well under 1 ms. Built once per process; never written to.
    private static let migratedTemplate = Result {
        var configuration = Configuration()
        configuration.prepareDatabase { db in CardboxStore.addFunctions(to: db) }
        let queue = try DatabaseQueue(configuration: configuration)
        try Schema.migrator.migrate(queue)
        return queue
    }

    /// The key a replica's id is stored under in rows and clocks, added when first seen.
    static func replicaKey(_ db: Database, _ replicaId: String) throws -> Int64 {
        if let key = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT key FROM replica WHERE id = ?"), arguments: [replicaId])
        {
            return key
        }
        try db.cachedStatement(sql: "INSERT INTO replica (id) VALUES (?)").execute(arguments: [replicaId])
        return db.lastInsertedRowID
    }

    /// The account, replica id and replica key of a store set up before, or nil when any is missing.
    private static func identity(_ db: Database, account: UUID?) throws -> (UUID, String, Int64)? {
        let info = try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM storeInfo").map {
                ($0["key"] as String, $0["value"] as String)
            })
        guard let replica = info["replicaId"], let stored = info["accountId"] else { return nil }
        let accountId = try fileAccount(stored, opening: account)
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM account WHERE id = ?", arguments: [accountId.storage]) != nil,
            let key = try Int64.fetchOne(db, sql: "SELECT key FROM replica WHERE id = ?", arguments: [replica])
        else { return nil }
        return (accountId, replica, key)
    }

    /// The file's account, which must be the one asked for, when one is.
    private static func fileAccount(_ stored: String, opening account: UUID?) throws -> UUID {
        guard let fileAccount = UUID(uuidString: stored) else {
            throw CardboxError.storage("the store names its account '\(stored)', which is not an id")
        }
        if let account, account != fileAccount {
            throw CardboxError.invalid(
                field: "account", reason: "this store holds account \(fileAccount.storage), not \(account.storage)")
        }
        return fileAccount
    }

    private static func storeInfo(_ db: Database, key: String, orInsert value: String) throws -> String {
        if let existing = try String.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM storeInfo WHERE key = ?"), arguments: [key])
        {
            return existing
        }
        try db.execute(sql: "INSERT INTO storeInfo (key, value) VALUES (?, ?)", arguments: [key, value])
        return value
    }

    /// Runs `body` in a write transaction, with `images` (bytes, and the field that names them in an
    /// error) decoded first: decoding takes an image worker up to seconds, which must not hold the
    /// writer. Inside, `WriteContext.storeImage` finds each by its bytes.
    func write<T>(
        decodingImages images: [(data: Data, field: String)], keepBytes: Bool = false,
        _ body: (WriteContext) throws -> T
    ) throws -> T {
        var decoded: [Data: IngestedImage] = [:]
        for (data, field) in images where decoded[data] == nil {
            decoded[data] = try environment.decodeImage(data, field, keepBytes)
        }
        return try write { tx in
            tx.decodedImages = decoded
            return try body(tx)
        }
    }

    /// The optional image of a write, as `write(decodingImages:)` takes it.
    static func decoding(_ image: Data?) -> [(data: Data, field: String)] {
        image.map { [($0, "image")] } ?? []
    }

    /// Runs `body` in one write transaction stamped with one HLC timestamp. Any error rolls back
    /// everything `body` did.
    func write<T>(_ body: (WriteContext) throws -> T) throws -> T {
        try translatingErrors {
            try writer.write { db in
                let now = environment.now()
                var clock = try Self.clock(db)
                let timestamp = clock.tick(now: now)
                try Self.save(clock, db)
                let context = WriteContext(
                    db: db, accountId: accountId, replicaId: replicaId, replicaKey: replicaKey, now: now,
                    timestamp: timestamp, environment: environment)
                let result = try body(context)
                try context.finish()
                return result
            }
        }
    }

    /// The replica's hybrid logical clock, as last saved.
    static func clock(_ db: Database) throws -> HybridLogicalClock {
        let lastText = try String.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM storeInfo WHERE key = 'lastHlc'"))
        let last = lastText.flatMap { Int64($0) } ?? 0
        return HybridLogicalClock(last: HLCTimestamp(rawValue: UInt64(bitPattern: last)))
    }

    static func save(_ clock: HybridLogicalClock, _ db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO storeInfo (key, value) VALUES ('lastHlc', ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ).execute(arguments: [String(clock.last.storageValue)])
    }

    /// Runs `body` in one read transaction (a consistent snapshot). It runs on the writer's
    /// connection: a separate reader connection would drop its page cache after every commit, and
    /// studying alternates a read and a write per card (this halved the time per answer).
    func read<T>(_ body: (StoreContext) throws -> T) throws -> T {
        try translatingErrors {
            try writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(StoreContext(db: db, accountId: accountId, environment: environment))
                    return .commit
                }
                return result!
            }
        }
    }

    func translatingErrors<T>(_ body: () throws -> T) throws -> T { try Self.translatingErrors(body) }

    static func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CardboxError {
            throw error
        } catch let error as DatabaseError {
            throw CardboxError.storage("the store refused the change: \(error.message ?? error.description)")
        }
    }
}

extension UUID {
    /// How ids are stored: lowercase text, the same in SQLite and PostgreSQL. Formatted by hand:
    /// `uuidString` goes through `snprintf`, which showed in batch-insert profiles.
    var storage: String {
        let hex = UUID.hexDigits
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = hex[Int(byte >> 4)]
                    buffer[index + 1] = hex[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Reads an id as stored (RFC text, 8-4-4-4-12 hex digits). Parsed by hand: `UUID(uuidString:)`
    /// goes through `sscanf`, which showed when turning a thousand rows into cards. Malformed text (a
    /// store edited by hand, a damaged file) is an error, never a crash.
    init(stored text: String) throws {
        guard let id = UUID(storedText: text) else {
            throw CardboxError.storage("the store holds a malformed id '\(text.prefix(60))'")
        }
        self = id
    }

    /// The id `text` spells in the stored form, or nil when it is not exactly 8-4-4-4-12 hex digits.
    init?(storedText text: String) {
        var bytes = [UInt8](repeating: 0, count: 16)
        var index = 0
        var high: UInt8?
        var length = 0
        for character in text.utf8 {
            defer { length += 1 }
            if length == 8 || length == 13 || length == 18 || length == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard index < 16 else { return nil }
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes[index] = first << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard length == 36, index == 16 else { return nil }
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

extension Date {
    /// How times are stored: integer milliseconds since 1970, UTC, within `StoredTime`'s window (a
    /// due time computed from a value out of bounds is stored at the window's end, not a trap).
    var storageMillis: Int64 { StoredTime.clampedMilliseconds(self) }

    init(storageMillis: Int64) { self.init(timeIntervalSince1970: Double(storageMillis) / 1000) }
}

extension Bool {
    var storage: Int64 { self ? 1 : 0 }
}

extension TypedID {
    /// How ids are stored (see `UUID.storage`).
    var storage: String { uuid.storage }

    init(stored: String) throws { self.init(try UUID(stored: stored)) }
}

/// A kind of record people name by id, name or short id; `CardboxStore.resolve` turns such a name
/// into the record's typed id.
public protocol NamedRecord {
    static var syncedEntity: SyncedEntity { get }
}

extension Deck: NamedRecord { public static var syncedEntity: SyncedEntity { .deck } }
extension Card: NamedRecord { public static var syncedEntity: SyncedEntity { .card } }
extension Suggestion: NamedRecord { public static var syncedEntity: SyncedEntity { .suggestion } }
extension ItemList: NamedRecord { public static var syncedEntity: SyncedEntity { .itemList } }
extension Item: NamedRecord { public static var syncedEntity: SyncedEntity { .item } }
extension ItemImage: NamedRecord { public static var syncedEntity: SyncedEntity { .itemImage } }
extension Board: NamedRecord { public static var syncedEntity: SyncedEntity { .board } }
extension BoardColumn: NamedRecord { public static var syncedEntity: SyncedEntity { .boardColumn } }
extension BoardCard: NamedRecord { public static var syncedEntity: SyncedEntity { .boardCard } }

extension CardboxStore {
    /// Finds the record a person named: by its id, its exact name (decks, lists, boards; decks also
    /// case-insensitively), or a unique prefix or suffix of its id. Every other operation takes the
    /// typed id this returns, so naming is one step, done once, by whoever talks to people.
    public func resolve<Record: NamedRecord>(_ reference: String, as _: Record.Type = Record.self) throws
        -> TypedID<Record>
    {
        try read { context in
            let stored = try context.resolve(reference, Record.syncedEntity)
            guard let id = TypedID<Record>(stored) else {
                throw CardboxError.notFound(kind: Record.syncedEntity.kind, reference: reference)
            }
            return id
        }
    }
}
