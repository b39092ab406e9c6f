import CardboxCore
import CardboxServer
import CardboxServerSQLite
import CardboxStore
import CardboxSync
import Foundation

/// One randomized history: 3–5 replicas of one account make random operations of every kind the
/// command line offers, and exchange their change sets in random order, with duplicates, drops
/// that are sent again later, and partial batches. Once every replica has seen everything, all must
/// hold the same state: the same canonical dump, order numbers 0…n−1 everywhere, no orphans, no
/// board card in two columns. Everything random comes from `seed`, so a failing history replays.
public struct ConvergenceHistory {
    public let seed: UInt64
    /// How change sets travel, for failure messages: how to replay this history.
    let replay: String
    /// How many steps (operations, sends, deliveries) the history takes before its final round.
    let steps: ClosedRange<Int>
    private let makeExchange: ExchangeFactory
    /// The browser's replica, also checked against the device stores when given.
    public var browser: (any RecordReplicaRunner)? = nil

    /// Makes the way replicas exchange changes, given the history's clock and randomness.
    public typealias ExchangeFactory = (SimulatedClock, inout SplitMix64) async throws -> any Exchange

    /// Change sets travel straight between replicas, or (`throughServer`) are pushed to and pulled
    /// from the server's sync state: on `serverDatabase` when given (PostgreSQL, say, shared by
    /// the histories, each using an account of its own), else on a fresh SQLite sync state in memory.
    /// Through the server, pulls come in random pages, some answers are lost and asked for again,
    /// and some pushes are retried.
    public init(seed: UInt64, throughServer: Bool = false, serverDatabase: (any ServerDatabase)? = nil) {
        let throughServer = throughServer || serverDatabase != nil
        self.init(
            seed: seed, replay: "cardbox-converge --seed \(seed)\(throughServer ? " --through-server" : "")"
        ) { clock, random in
            let account = UUID(random: &random)
            guard throughServer else { return Network(account: account) }
            return try await ServerExchange(account: account, clock: clock, database: serverDatabase)
        }
    }

    /// A history whose replicas exchange changes the way `exchange` makes; `replay` says how to
    /// run it again.
    public init(
        seed: UInt64, steps: ClosedRange<Int> = 8...30, replay: String, exchange: @escaping ExchangeFactory
    ) {
        self.seed = seed
        self.steps = steps
        self.replay = replay
        self.makeExchange = exchange
    }

    /// What a history did, for the summary line.
    public struct Outcome: Sendable {
        public var operations = 0
        public var refusedOperations = 0
        public var deliveries = 0
    }

    public func run() async throws -> Outcome {
        var random = SplitMix64(seed: seed)
        let clock = SimulatedClock()
        var network = try await makeExchange(clock, &random)
        do {
            let outcome = try await run(through: &network, clock: clock, random: &random)
            await network.close()
            return outcome
        } catch let failure as ConvergenceFailure {
            await network.close()
            throw failure
        } catch {
            await network.close()
            // Any other error too names the history, so that it replays.
            throw ConvergenceFailure(seed: seed, reason: "\(error)", replay: replay)
        }
    }

    private func run(through network: inout any Exchange, clock: SimulatedClock, random: inout SplitMix64)
        async throws -> Outcome
    {
        let replicas = try (0..<Int.random(in: 3...5, using: &random)).map { index in
            try Replica(index: index, account: network.account, clock: clock, seed: random.next())
        }
        try await network.join(replicas)
        var outcome = Outcome()
        for _ in 0..<Int.random(in: steps, using: &random) {
            clock.advance(by: Int64.random(in: 0...4_000, using: &random))
            let replica = replicas[Int.random(in: 0..<replicas.count, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                outcome.operations += 1
                if !(try replica.performRandomOperation(using: &random)) { outcome.refusedOperations += 1 }
            case 6..<8:
                try await network.publish(from: replica, using: &random)
            default:
                outcome.deliveries += try await network.deliverSome(to: replica, using: &random)
            }
        }
        outcome.deliveries += try await network.finish(replicas, using: &random)
        try await check(replicas, network: network, random: &random)
        return outcome
    }

    private func check(_ replicas: [Replica], network: any Exchange, random: inout SplitMix64) async throws {
        let dumps = try replicas.map { try $0.store.canonicalDump() }
        for (index, dump) in dumps.enumerated().dropFirst() where dump != dumps[0] {
            throw ConvergenceFailure(
                seed: seed, reason: "replicas 0 and \(index) differ:\n\(Self.firstDifference(dumps[0], dump))",
                replay: replay)
        }
        for replica in replicas {
            if let problem = try replica.integrityProblem() {
                throw ConvergenceFailure(
                    seed: seed, reason: "replica \(replica.index): \(problem)", replay: replay)
            }
        }
        let everything = try await network.everything()
        try checkRecordReplicas(against: dumps[0], everything, account: network.account, random: &random)
        // Applying everything again changes nothing.
        for changes in everything { try replicas[0].store.apply(changes) }
        guard try replicas[0].store.canonicalDump() == dumps[0] else {
            throw ConvergenceFailure(
                seed: seed, reason: "applying every change set again changed replica 0", replay: replay)
        }
    }

    /// Replicas that hold records by name (`ReplicaRecords`, as the browser does), natively and, with
    /// `browser`, in WebAssembly: given every change set sent, in a random order, each must show what
    /// the device stores show.
    private func checkRecordReplicas(
        against expected: String, _ everything: [ChangeSet], account: UUID, random: inout SplitMix64
    ) throws {
        // A replica of records starts from what a new store holds, which no change set carries.
        let origin = try CardboxStore.originChanges(account: account)
        let changeSets = ([origin] + everything).map(\.jsonText).shuffled(using: &random)
        var native = ReplicaRecords(schema: SyncRegistry.replicaSchema)
        for text in changeSets {
            native.apply(try WireChanges(json: JSONParser.parse(text), schema: native.schema))
        }
        var holders = [("a native record replica", native.canonicalDump(), replay)]
        if let browser {
            holders.append(
                (
                    "the browser's replica (WebAssembly)", try browser.dump(after: changeSets),
                    replay + " --browser-replica"
                ))
        }
        for (name, dump, replay) in holders where dump != expected {
            throw ConvergenceFailure(
                seed: seed, reason: "\(name) differs from replica 0:\n\(Self.firstDifference(expected, dump))",
                replay: replay)
        }
    }

    static func firstDifference(_ left: String, _ right: String) -> String {
        let leftLines = left.split(separator: "\n", omittingEmptySubsequences: false)
        let rightLines = right.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(leftLines.count, rightLines.count) {
            let l = index < leftLines.count ? String(leftLines[index]) : "(nothing)"
            let r = index < rightLines.count ? String(rightLines[index]) : "(nothing)"
            if l != r { return "line \(index + 1)\n  < \(l.prefix(600))\n  > \(r.prefix(600))" }
        }
        return "(no line differs)"
    }
}

public struct ConvergenceFailure: Error, CustomStringConvertible {
    public let seed: UInt64
    public let reason: String
    public var replay: String
    public var description: String { "history \(seed) failed: \(reason)\nreplay: \(replay)" }
}

/// How replicas exchange change sets in a history.
public protocol Exchange {
    /// The account every replica of the history belongs to.
    var account: UUID { get }
    /// Connects the replicas, once they exist (signs them in to a server, say).
    mutating func join(_ replicas: [Replica]) async throws
    /// Sends what the replica changed since it last sent.
    mutating func publish(from replica: Replica, using random: inout SplitMix64) async throws
    /// Delivers some of what the replica has not received yet; returns how many change sets.
    mutating func deliverSome(to replica: Replica, using random: inout SplitMix64) async throws -> Int
    /// Delivers everything the replica has not received yet.
    mutating func deliverAll(to replica: Replica, using random: inout SplitMix64) async throws -> Int
    /// The final round: everyone sends what is left, and every change reaches every replica.
    /// Returns how many change sets were delivered.
    mutating func finish(_ replicas: [Replica], using random: inout SplitMix64) async throws -> Int
    /// Every change set sent, to apply again.
    func everything() async throws -> [ChangeSet]
    /// Releases what the exchange holds (a server it started, say), once the history is over.
    func close() async
}

extension Exchange {
    public mutating func join(_ replicas: [Replica]) async throws {}

    public func close() async {}

    public mutating func finish(_ replicas: [Replica], using random: inout SplitMix64) async throws -> Int {
        for replica in replicas { try await publish(from: replica, using: &random) }
        var delivered = 0
        for replica in replicas { delivered += try await deliverAll(to: replica, using: &random) }
        return delivered
    }
}

/// Replicas send their change sets straight to each other.
struct Network: Exchange {
    let account: UUID
    private(set) var log: [ChangeSet] = []
    private var pending: [[ChangeSet]] = []
    private var cursors: [HLCTimestamp] = []

    init(account: UUID) { self.account = account }

    mutating func join(_ replicas: [Replica]) {
        pending = Array(repeating: [], count: replicas.count)
        cursors = Array(repeating: .zero, count: replicas.count)
    }

    /// Sends a replica's changes since it last sent, to every other replica. Every set goes through
    /// its JSON wire form, as it will between devices and the server.
    func everything() -> [ChangeSet] { log }

    mutating func publish(from replica: Replica, using random: inout SplitMix64) throws {
        let (changes, cursor) = try replica.store.changes(since: cursors[replica.index])
        cursors[replica.index] = cursor
        guard !changes.isEmpty else { return }
        let sent = try ChangeSet.parse(changes.jsonText)
        log.append(sent)
        for index in pending.indices where index != replica.index { pending[index].append(sent) }
    }

    /// Delivers a few pending change sets in random order: some are dropped and stay pending (sent
    /// again later), some arrive in two parts, some arrive twice.
    mutating func deliverSome(to replica: Replica, using random: inout SplitMix64) throws -> Int {
        var delivered = 0
        for _ in 0..<Int.random(in: 1...3, using: &random) where !pending[replica.index].isEmpty {
            let position = Int.random(in: 0..<pending[replica.index].count, using: &random)
            if Int.random(in: 0..<6, using: &random) == 0 { continue }  // dropped: resent later
            var changes = pending[replica.index].remove(at: position)
            if Int.random(in: 0..<4, using: &random) == 0 {
                let (first, rest) = changes.split(using: &random)
                changes = first
                pending[replica.index].append(rest)
            }
            try replica.store.apply(changes)
            delivered += 1
            if Int.random(in: 0..<8, using: &random) == 0 { pending[replica.index].append(changes) }
        }
        return delivered
    }

    mutating func deliverAll(to replica: Replica, using random: inout SplitMix64) throws -> Int {
        var delivered = 0
        while !pending[replica.index].isEmpty {
            let changes = pending[replica.index].remove(
                at: Int.random(in: 0..<pending[replica.index].count, using: &random))
            try replica.store.apply(changes)
            delivered += 1
        }
        return delivered
    }
}

/// Replicas push to and pull from the server's sync state, as devices do.
struct ServerExchange: Exchange {
    let state: any ServerDatabase
    let account: UUID
    let clock: SimulatedClock
    private var sent: [HLCTimestamp] = []
    private var received: [Int64] = []

    /// On `database` (the account's earlier records removed first, so a seed replays), or on a
    /// fresh SQLite sync state in memory.
    init(account: UUID, clock: SimulatedClock, database: (any ServerDatabase)?) async throws {
        if let database {
            try await database.removeAccount(account)
            state = database
        } else {
            state = try SQLiteServerDatabase.inMemory()
        }
        self.account = account
        self.clock = clock
    }

    mutating func join(_ replicas: [Replica]) {
        sent = Array(repeating: .zero, count: replicas.count)
        received = Array(repeating: 0, count: replicas.count)
    }

    /// Pushes through the JSON wire form; now and then the answer is lost and the same batch is
    /// pushed again.
    mutating func publish(from replica: Replica, using random: inout SplitMix64) async throws {
        let (changes, cursor) = try replica.store.changes(since: sent[replica.index])
        guard !changes.isEmpty else { return }
        let batch = UUID(random: &random)
        let wire = try ChangeSet.parse(changes.jsonText)
        _ = try await state.push(wire, batch: batch, account: account, now: clock.now(skew: 0))
        if Int.random(in: 0..<5, using: &random) == 0 {
            let retry = try await state.push(wire, batch: batch, account: account, now: clock.now(skew: 0))
            guard retry.wasRetry else { throw CardboxError.storage("a retried batch was applied again") }
        }
        sent[replica.index] = cursor
    }

    /// Pulls a page or two of random size; now and then a page is applied but its cursor lost, so the
    /// same records arrive again.
    mutating func deliverSome(to replica: Replica, using random: inout SplitMix64) async throws -> Int {
        var delivered = 0
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let page = try await state.pull(
                account: account, after: received[replica.index], limit: Int.random(in: 1...12, using: &random))
            guard !page.changes.isEmpty else { break }
            try replica.store.apply(try ChangeSet.parse(page.changes.jsonText))
            delivered += 1
            if Int.random(in: 0..<6, using: &random) != 0 { received[replica.index] = page.cursor }
        }
        return delivered
    }

    mutating func deliverAll(to replica: Replica, using random: inout SplitMix64) async throws -> Int {
        var delivered = 0
        var page: PullPage
        repeat {
            page = try await state.pull(
                account: account, after: received[replica.index], limit: Int.random(in: 1...50, using: &random))
            if !page.changes.isEmpty {
                try replica.store.apply(try ChangeSet.parse(page.changes.jsonText))
                delivered += 1
            }
            received[replica.index] = page.cursor
        } while page.hasMore
        return delivered
    }

    func everything() async throws -> [ChangeSet] {
        var all: [ChangeSet] = []
        var cursor: Int64 = 0
        var page: PullPage
        repeat {
            page = try await state.pull(account: account, after: cursor, limit: 1_000)
            all.append(page.changes)
            cursor = page.cursor
        } while page.hasMore
        return all
    }
}

extension ChangeSet {
    /// Two change sets that together carry this one: a partial batch and the rest.
    func split(using random: inout SplitMix64) -> (ChangeSet, ChangeSet) {
        var first = ChangeSet(accountId: accountId, replicaId: replicaId)
        var rest = first
        for row in rows {
            if Bool.random(using: &random) { first.rows.append(row) } else { rest.rows.append(row) }
        }
        for tombstone in tombstones {
            if Bool.random(using: &random) {
                first.tombstones.append(tombstone)
            } else {
                rest.tombstones.append(tombstone)
            }
        }
        return (first, rest)
    }
}

/// The time every replica reads, each with its own skew, moved on by the history.
public final class SimulatedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var millis: Int64 = 1_767_225_600_000  // 2026-01-01

    func advance(by milliseconds: Int64) { lock.withLock { millis += milliseconds } }

    /// The time, `skew` milliseconds off.
    public func now(skew: Int64 = 0) -> Date {
        lock.withLock { Date(timeIntervalSince1970: Double(millis + skew) / 1000) }
    }
}

/// A deterministic generator (SplitMix64): the same seed, the same history.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A generator shared by a store's closures, which must be `Sendable`.
final class SharedRandom: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    func next() -> UInt64 { lock.withLock { generator.next() } }
}

struct SharedRandomGenerator: RandomNumberGenerator {
    let source: SharedRandom
    mutating func next() -> UInt64 { source.next() }
}

extension UUID {
    /// A random (version 4) id drawn from `random`.
    public init(random: inout some RandomNumberGenerator) {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
