import CardboxCore
import CardboxSync
import Crypto
import Foundation
import Testing

@Suite("Hybrid logical clock")
struct HybridLogicalClockTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("packs 48 bits of milliseconds and a 16-bit counter")
    func packing() {
        let timestamp = HLCTimestamp(milliseconds: 1_700_000_000_123, counter: 7)
        #expect(timestamp.milliseconds == 1_700_000_000_123 && timestamp.counter == 7)
        #expect(HLCTimestamp(milliseconds: 5, counter: 0xFFFF) < HLCTimestamp(milliseconds: 6, counter: 0))
    }

    @Test("ticks strictly increase, even when the wall clock stalls or goes back")
    func monotonic() {
        var clock = HybridLogicalClock()
        let first = clock.tick(now: start)
        let second = clock.tick(now: start)
        let third = clock.tick(now: start.addingTimeInterval(-10))
        #expect(first < second && second < third)
        #expect(third.milliseconds == first.milliseconds && third.counter == 2)
        let later = clock.tick(now: start.addingTimeInterval(1))
        #expect(later.counter == 0 && later > third)
    }

    @Test("a full counter borrows the next millisecond")
    func counterOverflow() {
        var clock = HybridLogicalClock(last: HLCTimestamp(milliseconds: 1_700_000_000_000, counter: .max))
        let next = clock.tick(now: start)
        #expect(next == HLCTimestamp(milliseconds: 1_700_000_000_001, counter: 0))
    }

    @Test("receiving a remote timestamp moves the clock past it")
    func receive() throws {
        var clock = HybridLogicalClock()
        _ = clock.tick(now: start)
        let remote = HLCTimestamp(milliseconds: 1_700_000_060_000, counter: 3)
        let merged = try clock.receive(remote, now: start)
        #expect(merged > remote)
        #expect(clock.tick(now: start) > merged)
    }

    @Test("a remote clock more than five minutes ahead is refused")
    func drift() {
        var clock = HybridLogicalClock()
        let remote = HLCTimestamp(milliseconds: 1_700_000_000_000 + 6 * 60 * 1000, counter: 0)
        #expect(throws: CardboxError.self) { try clock.receive(remote, now: start) }
        #expect(clock.last == .zero)
    }
}

@Suite("Position keys")
struct PositionKeyTests {
    @Test("keys between neighbours sort between them")
    func between() throws {
        let first = try PositionKey.between(nil, nil)
        let after = try PositionKey.between(first, nil)
        let before = try PositionKey.between(nil, first)
        let middle = try PositionKey.between(first, after)
        #expect(before < first && first < middle && middle < after)
        #expect(throws: CardboxError.self) { try PositionKey.between(after, first) }
        #expect(throws: CardboxError.self) { try PositionKey.between("a10", nil) }  // trailing zero
        #expect(throws: CardboxError.self) { try PositionKey.between("", nil) }
    }

    @Test("ten thousand appends keep keys short and sorted")
    func appends() {
        let keys = PositionKey.sequence(count: 10_000)
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == keys.count)
        #expect(keys.map(\.count).max()! <= 4)
    }

    @Test("random insertions anywhere keep a strict order, with jitter")
    func randomInsertions() throws {
        var random = SeededRandom(seed: 42)
        var keys: [String] = []
        for _ in 0..<2_000 {
            let index = Int.random(in: 0...keys.count, using: &random)
            let key = try PositionKey.between(
                index == 0 ? nil : keys[index - 1], index == keys.count ? nil : keys[index], using: &random)
            keys.insert(key, at: index)
        }
        for (a, b) in zip(keys, keys.dropFirst()) { #expect(a < b) }
    }

    @Test("two devices inserting at the same place rarely mint the same key")
    func jitter() throws {
        var deviceA = SeededRandom(seed: 1)
        var deviceB = SeededRandom(seed: 2)
        let a = try PositionKey.between("a0", "a1", using: &deviceA)
        let b = try PositionKey.between("a0", "a1", using: &deviceB)
        #expect(a != b)
        #expect("a0" < a && a < "a1" && "a0" < b && b < "a1")
    }

    @Test("inserting repeatedly at the front keeps working")
    func prepends() throws {
        var first = PositionKey.first
        for _ in 0..<1_000 {
            let key = try PositionKey.between(nil, first)
            #expect(key < first)
            first = key
        }
    }
}

@Suite("Name-based ids")
struct DeterministicIDTests {
    @Test("UUIDv5 matches RFC 9562's example")
    func rfcVector() {
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(
            DeterministicID.uuidV5(namespace: dns, name: "www.example.com")
                == UUID(uuidString: "2ed6657d-e927-568b-95e1-2665a8aea6a2"))
    }

    @Test("the replica's own SHA-1 mints the ids swift-crypto's does, names of every length to three blocks")
    func sameIdsAsCrypto() {
        let namespace = withUnsafeBytes(of: DeterministicID.namespace.uuid) { Array($0) }
        for length in 0...200 {
            let name = String((0..<length).map { Character(UnicodeScalar(UInt8(32 + ($0 * 7 + length) % 90))) }) + "é"
            var hash = Array(Insecure.SHA1.hash(data: namespace + Array(name.utf8)).prefix(16))
            hash[6] = (hash[6] & 0x0F) | 0x50
            hash[8] = (hash[8] & 0x3F) | 0x80
            #expect(NameBasedID.uuidV5(name: name) == hash, "\(length)")
        }
        let account = UUID(uuidString: "0A1B2C3D-0000-4000-8000-000000000001")!
        #expect(
            DeterministicID.tagID(accountId: account, normalizedName: "verbs").uuidString.lowercased()
                == NameBasedID.tagID(account: account.uuidString, key: "verbs"))
    }

    @Test("SHA-256 in lowercase hex matches FIPS 180-2's examples")
    func sha256Vectors() {
        #expect(sha256Hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(sha256Hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("the same tag name gives the same id on every device of an account, and differs across accounts")
    func tagIDs() {
        let account = UUID()
        let a = DeterministicID.tagID(accountId: account, normalizedName: TagName.normalize(" Verbs"))
        let b = DeterministicID.tagID(accountId: account, normalizedName: TagName.normalize("verbs"))
        #expect(a == b)
        #expect(DeterministicID.tagID(accountId: UUID(), normalizedName: "verbs") != a)
    }
}

@Suite("Change set replica ids")
struct ReplicaIdTests {
    @Test("a replica id holds 1 to 64 characters, counted as a person counts, and no control character")
    func replicaIds() throws {
        let accepted = [
            "a", String(repeating: "x", count: 64), String(repeating: "é", count: 64),
            String(repeating: "🇪🇸", count: 32),
        ]
        for replica in accepted {
            #expect(throws: Never.self) { try ChangeSet(accountId: UUID(), replicaId: replica).validate() }
        }
        let refused = [
            "", String(repeating: "x", count: 65), String(repeating: "é", count: 65), "a\u{0}b", "line\nbreak",
            "c1\u{85}", String(repeating: "🇪🇸", count: 33) + String(repeating: "x", count: 200),
        ]
        for replica in refused {
            #expect(
                throws: CardboxError.invalid(
                    field: "changes.replicaId",
                    reason: "names a replica of 1 to 64 characters, none of them control characters")
            ) { try ChangeSet(accountId: UUID(), replicaId: replica).validate() }
        }
    }
}

@Suite("Synced entities")
struct SyncedEntityTests {
    @Test("each entity's place is its place among all cases, and its descriptor is its own")
    func ordinals() {
        for (offset, entity) in SyncedEntity.allCases.enumerated() {
            #expect(entity.ordinal == offset, "\(entity)")
        }
        #expect(Set(SyncedEntity.allCases).count == SyncedEntity.allCases.count)
        #expect(SyncedEntity.card.identity == .uuid && SyncedEntity.card.field(named: "front") != nil)
        #expect(SyncedEntity.cardTag.identity != .uuid && SyncedEntity.cardTag.field(named: "front") == nil)
        #expect(SyncedEntity.boardCard.parents.map(\.parent) == [.boardColumn])
    }
}
