import CardboxConvergence
import CardboxCore
import CardboxStore
import CardboxSync
import Foundation
import Testing

/// The browser's list writes (`ReplicaRecords`' `ListWrites`), natively and in
/// the WebAssembly module under Node, against the store's: the same writes, at the same times, with
/// the same ids and randomness, leave the same records, clocks included, and refuse the same things.
@Suite("List writes: the browser's replica writes what the store writes")
struct ListWritesParityTests {
    /// One write, as both sides take it.
    enum Write: Sendable {
        case add(title: String, description: String = "", quantity: Int32? = nil)
        case cross(item: Int, crossedOut: Bool?)
        case move(item: Int, to: Int?)
        /// Another device's item at the very key of item `item` (two devices minted the same key).
        case twin(item: Int)
        /// Moves item `item` between the two items that share a key: the store lays the list out anew.
        case moveBetweenTwins(item: Int)
        case edit(item: Int, title: String? = nil, description: String? = nil, quantity: Int32?? = nil)
        case delete(item: Int)
        case createList(name: String)
        /// Seed 002's setting: whether lists show crossed-out items.
        case showCrossedOut(Bool)
    }

    /// A store whose time, ids and randomness the test sets, and the same for the replica.
    final class Setting: @unchecked Sendable {
        var milliseconds: UInt64 = 1_767_225_600_000
        var ids: [UUID] = []
        let seed: UInt64

        init(seed: UInt64) { self.seed = seed }

        func environment() -> StoreEnvironment {
            StoreEnvironment(
                now: { Date(timeIntervalSince1970: Double(self.milliseconds) / 1000) },
                newID: {
                    let id = UUID()
                    self.ids.append(id)
                    return id
                },
                makeRandom: { SeededRandom(seed: self.seed) }, timeZone: TimeZone(identifier: "UTC")!)
        }
    }

    static let writes: [Write] = [
        .add(title: "milk", quantity: 2), .add(title: "  eggs  "), .add(title: "bread", description: "brown"),
        .add(title: ""), .cross(item: 0, crossedOut: nil), .cross(item: 1, crossedOut: true),
        .cross(item: 1, crossedOut: true), .cross(item: 0, crossedOut: false), .move(item: 2, to: 0),
        .move(item: 0, to: nil), .move(item: 1, to: 1), .move(item: 1, to: 9), .add(title: "tea", quantity: -1),
        .move(item: 3, to: 1), .cross(item: 7, crossedOut: true), .twin(item: 1), .moveBetweenTwins(item: 0),
        .edit(item: 0, title: "oat milk", quantity: .some(nil)), .edit(item: 2, description: "rye", quantity: 3),
        .edit(item: 1, title: " "), .edit(item: 1), .delete(item: 2), .delete(item: 2), .createList(name: "Hardware"),
        .createList(name: ""), .showCrossedOut(true), .showCrossedOut(true), .showCrossedOut(false),
    ]

    /// A change set from another device holding an item with `row`'s key, list and fields, under
    /// another id, stamped half a second before `now`.
    static func twin(of row: RowChange, number: Int, now: UInt64, account: UUID) -> ChangeSet {
        let clock = WriteClock(HLCTimestamp(milliseconds: now - 500, counter: 0), "other-device")
        let id = "a0000000-0000-4000-8000-" + String(repeating: "0", count: 12 - String(number).count) + "\(number)"
        return ChangeSet(
            accountId: account, replicaId: "other-device",
            rows: [
                RowChange(
                    entity: .item, id: id, created: clock,
                    fields: row.fields.mapValues { FieldChange(value: $0.value, clock: clock) })
            ])
    }

    /// A replica of everything `store` holds, as the browser's first pull brings it, received at
    /// `milliseconds`; with the change sets' texts, for the browser's driver to start from.
    static func replica(of store: CardboxStore, at milliseconds: UInt64) throws -> (ReplicaRecords, [String]) {
        var replica = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: store.replicaId)
        let texts = [try CardboxStore.originChanges(account: store.accountId), try store.changes().changes]
            .map(\.jsonText)
        for text in texts {
            try replica.receive(
                try WireChanges(json: JSONParser.parse(text), schema: replica.schema), milliseconds: milliseconds)
        }
        return (replica, texts)
    }

    /// Runs `writes` on a store and on a replica of it; answers both dumps and both sides' refusals.
    struct Outcome {
        var store: String
        var replica: String
        var refusals: [String?]
        var replicaRefusals: [String?]
        /// The same run as the browser's driver takes it (`Tests/Wasm/replica_driver.cjs`).
        var browserRequest: [String: Any]
    }

    static func run(_ writes: [Write], seed: UInt64) throws -> Outcome {
        let setting = Setting(seed: seed)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let list = try store.createList(name: "Groceries")
        var (replica, startTexts) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        let (listId, receivedAt) = (list.id.uuid.uuidString.lowercased(), setting.milliseconds)
        var browserWrites: [[String: Any]] = []
        var items: [String] = []
        var lists: [String] = []
        var (refusals, replicaRefusals): ([String?], [String?]) = ([], [])
        for planned in writes {
            setting.milliseconds += 1_000
            var random = SeededRandom(seed: seed)
            let now = setting.milliseconds
            var storeRefusal: String?
            var replicaRefusal: String?
            var write = planned
            if case .moveBetweenTwins(let index) = planned {
                let others = replica.items(ofList: listId).filter { $0.id != items[index] }
                let keys = others.map { $0.fields["placement"]?.value }
                let slot = try #require(keys.indices.dropFirst().first { keys[$0 - 1] == keys[$0] })
                write = .move(item: index, to: slot)
            }
            switch write {
            case .add(let title, let description, let quantity):
                do {
                    let item = try store.addItem(
                        to: list.id, title: title, description: description, quantity: quantity)
                    items.append(item.id.uuid.uuidString.lowercased())
                } catch { storeRefusal = "\(error.localizedDescription)" }
                do throws(CardboxError) {
                    try replica.addItem(
                        id: items.last ?? "", listId: listId, title: title, description: description,
                        quantity: quantity, at: now, random: &random)
                } catch { replicaRefusal = error.message }
            case .cross(let index, let crossedOut):
                let id = index < items.count ? items[index] : "00000000-0000-0000-0000-000000000000"
                do { _ = try store.crossItem(try store.resolve(id), crossedOut: crossedOut) } catch {
                    storeRefusal = "refused"
                }
                do throws(CardboxError) { try replica.crossItem(id: id, crossedOut: crossedOut, at: now) } catch {
                    replicaRefusal = "refused"
                }
            case .twin(let index):
                let original = try #require(try store.changes().changes.rows.first { $0.id == items[index] })
                let twin = Self.twin(of: original, number: items.count, now: now, account: store.accountId)
                items.append(twin.rows[0].id)
                _ = try store.apply(twin)
                try replica.receive(
                    try WireChanges(json: JSONParser.parse(twin.jsonText), schema: replica.schema), milliseconds: now)
                browserWrites.append(["kind": "apply", "request": twin.jsonText, "now": now, "seed": seed])
                refusals.append(nil)
                replicaRefusals.append(nil)
                continue
            case .moveBetweenTwins: Issue.record("made a move above")
            case .edit(let index, let title, let description, let quantity):
                let id = items[index]
                do {
                    _ = try store.editItem(
                        try store.resolve(id), ItemChanges(title: title, description: description, quantity: quantity))
                } catch { storeRefusal = "\(error.localizedDescription)" }
                do throws(CardboxError) {
                    try replica.editItem(id: id, title: title, description: description, quantity: quantity, at: now)
                } catch { replicaRefusal = error.message }
            case .delete(let index):
                let id = items[index]
                do { try store.deleteItem(try store.resolve(id)) } catch { storeRefusal = "refused" }
                do throws(CardboxError) { try replica.deleteItem(id: id, at: now) } catch { replicaRefusal = "refused" }
            case .createList(let name):
                let before = setting.ids.count
                do { _ = try store.createList(name: name) } catch { storeRefusal = "\(error.localizedDescription)" }
                let id =
                    setting.ids.count > before
                    ? setting.ids.last!.uuidString.lowercased() : UUID().uuidString.lowercased()
                lists.append(id)
                do throws(CardboxError) {
                    try replica.createList(id: id, name: name, at: now, random: &random)
                } catch { replicaRefusal = error.message }
            case .showCrossedOut(let show):
                _ = try store.setSetting("showCrossedOutItems", to: show ? "true" : "false")
                try replica.showCrossedOutItems(show, at: now)
            case .move(let index, let position):
                let id = items[index]
                do { _ = try store.moveItem(try store.resolve(id), to: position) } catch {
                    storeRefusal = "\(error.localizedDescription)"
                }
                do throws(CardboxError) { try replica.moveItem(id: id, to: position, at: now, random: &random) } catch {
                    replicaRefusal = error.message
                }
            }
            browserWrites.append(
                Self.browserWrite(write, items: items, listId: listId, newList: lists.last, now: now, seed: seed))
            refusals.append(storeRefusal)
            replicaRefusals.append(replicaRefusal)
        }
        return Outcome(
            store: try store.canonicalDump(), replica: replica.canonicalDump(), refusals: refusals,
            replicaRefusals: replicaRefusals,
            browserRequest: [
                "replicaId": store.replicaId, "accountId": store.accountId.uuidString.lowercased(),
                "receivedAt": receivedAt, "changes": startTexts, "writes": browserWrites,
            ])
    }

    /// A write as `replica.js` takes it.
    static func browserWrite(
        _ write: Write, items: [String], listId: String, newList: String?, now: UInt64, seed: UInt64
    ) -> [String: Any] {
        func item(_ index: Int) -> String {
            index < items.count ? items[index] : "00000000-0000-0000-0000-000000000000"
        }
        let (kind, request): (String, [String: Any]) =
            switch write {
            case .add(let title, let description, let quantity):
                (
                    "addItem",
                    [
                        "id": items.last ?? "", "listId": listId, "title": title, "description": description,
                        "quantity": quantity.map { Int($0) as Any } ?? NSNull(),
                    ]
                )
            case .cross(let index, let crossedOut):
                ("crossItem", ["id": item(index), "crossedOut": crossedOut ?? NSNull()])
            case .move(let index, let position): ("moveItem", ["id": item(index), "to": position ?? NSNull()])
            case .twin, .moveBetweenTwins: ("", [:])  // made into other requests by `run`
            case .edit(let index, let title, let description, let quantity):
                (
                    "editItem",
                    ["id": item(index)].merging(
                        [
                            "title": title as Any?, "description": description as Any?,
                            "quantity": quantity.map { $0.map { Int($0) as Any } ?? NSNull() },
                        ].compactMapValues { $0 }
                    ) { old, _ in old }
                )
            case .delete(let index): ("deleteItem", ["id": item(index)])
            case .createList(let name): ("createList", ["id": newList ?? "", "name": name])
            case .showCrossedOut(let show): ("showCrossedOut", ["show": show])
            }
        return ["kind": kind, "request": request, "now": now, "seed": seed]
    }

    @Test("adds, edits, crosses out and back, moves, deletes, new lists, refusals: the same records and messages")
    func sameRecords() throws {
        for seed in UInt64(1)...5 {
            let outcome = try Self.run(Self.writes, seed: seed)
            #expect(outcome.replica == outcome.store)
            #expect(outcome.replicaRefusals == outcome.refusals)
            #expect(outcome.refusals.compactMap { $0 }.count == 6)
            // Edited, deleted (bread, with its description) and made: what each write leaves.
            #expect(outcome.store.contains("\"eggs\"") && outcome.store.contains("\"oat milk\""))
            #expect(!outcome.store.contains("\"brown\"") && outcome.store.contains("\"Hardware\""))
        }
    }

    @Test("the WebAssembly module under Node: the same records, the same refusals, and what waits to be sent")
    func sameRecordsInTheBrowser() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...5 {
            let outcome = try Self.run(Self.writes, seed: seed)
            let answer = try browser.send(outcome.browserRequest)
            #expect(answer["dump"] == .string(outcome.store))
            guard case .array(let refusals)? = answer["refusals"] else {
                Issue.record("no refusals in \(answer)")
                continue
            }
            #expect(refusals.map { $0 == .null } == outcome.refusals.map { $0 == nil })
            #expect(refusals[3] == outcome.replicaRefusals[3].map(JSONValue.string))
            #expect(refusals[11] == outcome.replicaRefusals[11].map(JSONValue.string))
            // The list and its items wait to be sent, whole, stamped by this replica: the four made
            // here and the other device's twin, which the move between the twins laid out anew; and
            // the setting whether lists show crossed-out items.
            guard case .string(let pending)? = answer["pending"] else {
                Issue.record("nothing pending")
                continue
            }
            let sent = try ChangeSet.parse(pending)
            #expect(sent.replicaId == outcome.browserRequest["replicaId"] as? String)
            #expect(Set(sent.rows.map(\.entity)) == [.item, .itemList, .setting] && sent.rows.count == 7)
            #expect(sent.tombstones.map(\.entity) == [.item])
            let twin = try #require(sent.rows.first { $0.id.hasPrefix("a0000000-") })
            #expect(twin.fields["placement"]?.clock.replicaId == sent.replicaId)
            try sent.validate()
        }
    }
}
