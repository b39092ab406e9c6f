import CardboxCore
import CardboxSync
import Foundation
import Testing

/// The records a replica holds by name (the browser's, natively here; Node runs the same code in
/// WebAssembly in `ReplicaWasmTests`): merge, deletes, what a person sees.
@Suite("Records held by name")
struct ReplicaRecordsTests {
    static let account = "0b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"
    static let list = "1b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"
    static let item = "2b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"

    /// A change set in its wire form, written by the native writer.
    static func wire(_ rows: [RowChange] = [], _ tombstones: [Tombstone] = []) throws -> WireChanges {
        let changes = ChangeSet(
            accountId: UUID(uuidString: account)!, replicaId: "r", rows: rows, tombstones: tombstones)
        return try WireChanges(json: JSONParser.parse(changes.jsonText), schema: SyncRegistry.replicaSchema)
    }

    static func clock(_ milliseconds: UInt64, _ replica: String = "a") -> WriteClock {
        WriteClock(HLCTimestamp(milliseconds: milliseconds, counter: 0), replica)
    }

    static func listRow(name: String, at time: UInt64, replica: String = "a") -> RowChange {
        let clock = clock(time, replica)
        return RowChange(
            entity: .itemList, id: list, created: clock,
            fields: [
                "name": FieldChange(value: .string(name), clock: clock),
                "placement": FieldChange(value: .object(["position": .string("a0")]), clock: clock),
            ])
    }

    static func itemRow(at time: UInt64, listId: String = list) -> RowChange {
        let clock = clock(time)
        return RowChange(
            entity: .item, id: item, created: clock,
            fields: [
                "title": FieldChange(value: .string("milk"), clock: clock),
                "placement": FieldChange(
                    value: .object(["listId": .string(listId), "position": .string("a0")]), clock: clock),
            ])
    }

    @Test("the registry's schema reads back from its JSON, and names parents inside composite fields")
    func schemaRoundTrip() throws {
        let schema = SyncRegistry.replicaSchema
        #expect(try ReplicaSchema(json: JSONParser.parse(schema.json.jsonText)) == schema)
        #expect(schema.entities.map(\.name) == SyncedEntity.allCases.map(\.rawValue))
        let item = try #require(schema.entities.first { $0.name == "item" })
        #expect(item.parents == [.init(field: "placement", column: "listId", entity: "itemList")])
        let tag = try #require(schema.entities.first { $0.name == "tag" })
        #expect(!tag.deletesFinally && item.deletesFinally)
        let card = try #require(schema.entities.first { $0.name == "card" })
        #expect(card.realColumns.contains(.init(field: "schedule", column: "stability")))
    }

    @Test("field by field, the later clock wins, in either order; equal clocks take the greater value")
    func fieldMerge() throws {
        let older = Self.listRow(name: "Groceries", at: 1_000)
        let newer = Self.listRow(name: "Shop", at: 2_000, replica: "b")
        for order in [[older, newer], [newer, older]] {
            var records = ReplicaRecords(schema: SyncRegistry.replicaSchema)
            for row in order { records.apply(try Self.wire([row])) }
            let name = records.records.rows.values.first?.fields["name"]?.value
            #expect(name == .string("Shop"))
        }
        let tie = FieldChange(value: .string("b"), clock: Self.clock(5))
        #expect(tie.wins(over: FieldChange(value: .string("a"), clock: Self.clock(5))))
        #expect(!FieldChange(value: .string("a"), clock: Self.clock(5)).wins(over: tie))
    }

    @Test("a final delete refuses every later write; a name-made record comes back when made again later")
    func deletes() throws {
        var records = ReplicaRecords(schema: SyncRegistry.replicaSchema)
        records.apply(try Self.wire([], [Tombstone(entity: .itemList, id: Self.list, clock: Self.clock(1_000))]))
        records.apply(try Self.wire([Self.listRow(name: "Late", at: 9_000)]))
        #expect(records.records.rows.isEmpty && records.canonicalDump().isEmpty)

        let tagId = "3b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"
        func tag(at time: UInt64) -> RowChange {
            RowChange(
                entity: .tag, id: tagId, created: Self.clock(time),
                fields: [
                    "name": FieldChange(value: .string("food"), clock: Self.clock(time)),
                    "createdAt": FieldChange(value: .int(Int64(time)), clock: Self.clock(time)),
                ])
        }
        var tags = ReplicaRecords(schema: SyncRegistry.replicaSchema)
        tags.apply(try Self.wire([tag(at: 1_000)], [Tombstone(entity: .tag, id: tagId, clock: Self.clock(2_000))]))
        #expect(tags.canonicalDump().isEmpty)
        tags.apply(try Self.wire([tag(at: 3_000)]))
        #expect(tags.canonicalDump().contains("\"food\""))
    }

    @Test("a row whose parent is deleted or not here yet is held, not shown, until the parent comes")
    func heldChildren() throws {
        var records = ReplicaRecords(schema: SyncRegistry.replicaSchema)
        records.apply(try Self.wire([Self.itemRow(at: 2_000)]))
        #expect(records.canonicalDump().isEmpty)
        records.apply(try Self.wire([Self.listRow(name: "Groceries", at: 1_000)]))
        #expect(records.canonicalDump().split(separator: "\n").count == 2)
        records.apply(try Self.wire([], [Tombstone(entity: .itemList, id: Self.list, clock: Self.clock(3_000))]))
        #expect(records.canonicalDump().isEmpty)
    }

    @Test("a whole number in a real column is held as a real, as a device's typed column holds it")
    func realColumns() throws {
        let clock = Self.clock(1_000)
        let schedule: JSONValue = .object([
            "state": .string("review"), "step": .null, "stability": .double(2.0), "difficulty": .double(1.0),
            "lastReviewAt": .null, "reps": .int(1), "lapses": .int(0), "dueAt": .null,
        ])
        let card = RowChange(
            entity: .card, id: Self.item, created: clock,
            fields: ["schedule": FieldChange(value: schedule, clock: clock)])
        let changes = try Self.wire([card])
        // The wire reads `2.0` as the whole number 2 …
        guard case .object(let read)? = changes.rows.first?.fields["schedule"]?.value else {
            Issue.record("no schedule")
            return
        }
        #expect(read["stability"] == .int(2))
        // … which the replica holds as the real a device holds.
        var records = ReplicaRecords(schema: SyncRegistry.replicaSchema)
        records.apply(changes)
        guard case .object(let held)? = records.records.rows.values.first?.fields["schedule"]?.value else {
            Issue.record("no schedule held")
            return
        }
        #expect(held["stability"] == .double(2) && held["reps"] == .int(1))
    }

    @Test("malformed change sets are refused naming the place")
    func refusals() throws {
        let schema = SyncRegistry.replicaSchema
        let valid = ChangeSet(
            accountId: UUID(uuidString: Self.account)!, replicaId: "r", rows: [Self.listRow(name: "G", at: 1)])
        func problem(_ edit: (inout [String: JSONValue]) -> Void) throws -> WireProblem? {
            guard case .object(var root) = try JSONParser.parse(valid.jsonText) else { return nil }
            edit(&root)
            do {
                _ = try WireChanges(json: .object(root), schema: schema)
                return nil
            } catch {
                return error
            }
        }
        #expect(try problem { $0["format"] = .string("other") }?.field == "changes.format")
        #expect(
            try problem { $0["clocks"] = .array([]) }?.description
                == "changes.rows[0].created: names no entry of clocks")
        let unknown = try problem {
            guard case .array(var rows)? = $0["rows"], case .object(var row) = rows[0] else { return }
            row["entity"] = .string("spaceship")
            rows[0] = .object(row)
            $0["rows"] = .array(rows)
        }
        #expect(unknown?.description == "changes.rows[0].entity: 'spaceship' is not an entity")
    }

    @Test("the clock refuses a remote time more than five minutes ahead, naming how far")
    func clockDrift() {
        var clock = HybridLogicalClock()
        let wall: UInt64 = 1_700_000_000_000
        #expect(throws: HybridLogicalClock.TooFarAhead(seconds: 301)) {
            try clock.receive(HLCTimestamp(milliseconds: wall + 301_000, counter: 0), milliseconds: wall)
        }
        #expect(clock.last == .zero)
    }

    static let milk = "3b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"
    static let bread = "4b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d"

    /// A replica holding the list, with two items added here (one crossed out), none sent yet.
    static func shopping() throws -> ReplicaRecords {
        var replica = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        try replica.receive(wire([listRow(name: "Shop", at: 1_000)]), milliseconds: 2_000)
        var random = SeededRandom(seed: 7)
        try replica.addItem(id: Self.milk, listId: list, title: "milk", quantity: 2, at: 3_000, random: &random)
        try replica.addItem(id: Self.bread, listId: list, title: "bread", at: 3_000, random: &random)
        try replica.crossItem(id: Self.milk, at: 4_000)
        // The sync takes ids in one form only: another would wait for ever, refused at each push.
        #expect(throws: CardboxError.invalid(field: "id", reason: "'I1' is not a item id")) {
            try replica.addItem(id: "I1", listId: list, title: "eggs", at: 3_000, random: &random)
        }
        return replica
    }

    @Test("what a replica kept comes back whole: its records, what waits in its order, a clock past all")
    func keptAndRestored() throws {
        var kept = try Self.shopping()
        let saved = kept.savedText(accountId: Self.account, registry: SyncRegistry.version)
        let pending = kept.pendingText(accountId: Self.account, registry: SyncRegistry.version)
        let parse = { (text: String) in
            try WireChanges(json: JSONParser.parse(text), schema: SyncRegistry.replicaSchema)
        }
        var restored = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        restored.restore(try parse(saved))
        restored.resume(pending: try parse(pending))
        #expect(restored.canonicalDump() == kept.canonicalDump())
        #expect(restored.pending.count == kept.pending.count && restored.pending.count == 3)
        #expect(
            restored.pendingText(accountId: Self.account, registry: 1)
                == kept.pendingText(accountId: Self.account, registry: 1))
        #expect(restored.clock.last == HLCTimestamp(milliseconds: 4_000, counter: 0))
        // A write made with a wall clock behind the kept records still sorts after them.
        try restored.crossItem(id: Self.bread, at: 1)
        #expect(restored.clock.last == HLCTimestamp(milliseconds: 4_000, counter: 1))
        // Once sent, nothing kept waits.
        kept.markSent(through: kept.writeCount)
        var sent = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        sent.restore(try parse(kept.savedText(accountId: Self.account, registry: 1)))
        sent.resume(pending: try parse(kept.pendingText(accountId: Self.account, registry: 1)))
        #expect(sent.pending.isEmpty && sent.canonicalDump() == kept.canonicalDump())
    }

    @Test("a snapshot and a journal of each write's records give the records back; what waits follows the kept text")
    func snapshotAndJournal() throws {
        var kept = try Self.shopping()
        let parse = { (text: String) in
            try WireChanges(json: JSONParser.parse(text), schema: SyncRegistry.replicaSchema)
        }
        let snapshot = kept.savedText(accountId: Self.account, registry: 1)
        let before = kept.writeCount
        try kept.crossItem(id: Self.bread, at: 5_000)
        // The journal's entry for the write holds what it wrote only: the item and its list's time.
        let entry = try parse(kept.pendingText(accountId: Self.account, registry: 1, since: before))
        #expect(Set(entry.rows.map(\.id)) == [Self.bread, Self.list] && entry.tombstones.isEmpty)
        var restored = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        restored.restore(try parse(snapshot))
        restored.restore(entry)
        restored.resume(pending: try parse(kept.pendingText(accountId: Self.account, registry: 1)))
        #expect(restored.canonicalDump() == kept.canonicalDump())
        #expect(
            restored.pendingText(accountId: Self.account, registry: 1)
                == kept.pendingText(accountId: Self.account, registry: 1))
        #expect(restored.clock.last == kept.clock.last)
        #expect(kept.clock.last == HLCTimestamp(milliseconds: 5_000, counter: 0))
        // Another tab sent everything: taking its kept text, nothing waits here either.
        kept.markSent(through: kept.writeCount)
        restored.resume(pending: try parse(kept.pendingText(accountId: Self.account, registry: 1)))
        #expect(restored.pending.isEmpty && restored.canonicalDump() == kept.canonicalDump())
    }

    @Test("a record the server refused is set aside: not sent again until written again; named for people")
    func setAside() throws {
        var replica = try Self.shopping()
        let schema = SyncRegistry.replicaSchema
        let milk = ReplicaRecords.Key(try #require(schema.entity(named: "item")), Self.milk)
        let list = ReplicaRecords.Key(try #require(schema.entity(named: "itemList")), Self.list)
        #expect(replica.label(of: milk) == "milk" && replica.label(of: list) == "Shop")
        #expect(replica.pending[milk] != nil)
        replica.setAside(milk)
        let waiting = try WireChanges(
            json: JSONParser.parse(replica.pendingText(accountId: Self.account, registry: 1)), schema: schema)
        #expect(!waiting.rows.contains { $0.id == Self.milk } && waiting.rows.contains { $0.id == Self.bread })
        // Kept as written here, and sent again once written again.
        #expect(replica.records.rows[milk] != nil)
        try replica.crossItem(id: Self.milk, at: 5_000)
        #expect(replica.pending[milk] != nil)
    }

    @Test("a change set's text is read straight as its tree reads it; a form replicas do not write is declined")
    func straightReader() throws {
        let kept = try Self.shopping()
        let schema = SyncRegistry.replicaSchema
        let text = kept.savedText(accountId: Self.account, registry: 1)
        let tree = try WireChanges(json: JSONParser.parse(text), schema: schema)
        let straight = try #require(WireChanges.read(text: text, schema: schema))
        #expect(
            straight.page == nil && straight.changes.rows == tree.rows && straight.changes.accountId == Self.account)
        let page = try #require(
            WireChanges.read(text: "{\"changes\":\(text),\"cursor\":7,\"hasMore\":true,\"more\":[1]}", schema: schema))
        #expect(page.page?.cursor == 7 && page.page?.hasMore == true && page.changes.rows == tree.rows)
        // Declined, and left to the tree (which reads or names them): a repeated member, rows before
        // the clocks they name, a page without its cursor, text after the value.
        let repeated = text.replacingOccurrences(of: "{\"accountId\":", with: "{\"replicaId\":\"x\",\"accountId\":")
        #expect(WireChanges.read(text: repeated, schema: schema) == nil)
        let json = try JSONParser.parse(text)
        guard case .object(var members) = json, case .array(let rows)? = members["rows"] else {
            Issue.record("not a change set")
            return
        }
        members["rows"] = nil
        let rowsFirst = "{\"rows\":\(JSONValue.array(rows).jsonText)," + JSONValue.object(members).jsonText.dropFirst()
        #expect(WireChanges.read(text: rowsFirst, schema: schema) == nil)
        #expect(try WireChanges(json: JSONParser.parse(rowsFirst), schema: schema).rows == tree.rows)
        #expect(WireChanges.read(text: "{\"changes\":\(text),\"hasMore\":false}", schema: schema) == nil)
        #expect(WireChanges.read(text: text + " 1", schema: schema) == nil)
    }

    @Test("the list pages' models: lists with their counts, a list's items in order, crossed-out ones hidden")
    func listPages() throws {
        var replica = try Self.shopping()
        // Three records wait (milk, bread, their list), written by three operations: milk added,
        // bread added, milk crossed out. Once sent, crossing milk back in is one more.
        #expect(replica.pending.count == 3 && replica.pendingOperations == 3)
        var sent = replica
        sent.markSent(through: sent.writeCount)
        try sent.crossItem(id: Self.milk, crossedOut: false, at: 4_500)
        #expect(sent.pending.count == 2 && sent.pendingOperations == 1)
        // Read back from what a page kept, it counts the same: what does not wait was sent.
        let parse = { (text: String) in
            try WireChanges(json: JSONParser.parse(text), schema: SyncRegistry.replicaSchema)
        }
        var kept = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        kept.restore(try parse(sent.savedText(accountId: Self.account, registry: 1)))
        kept.resume(pending: try parse(sent.pendingText(accountId: Self.account, registry: 1)))
        #expect(kept.pendingOperations == 1)
        guard case .object(let lists) = replica.listsPage(), case .array(let rows)? = lists["lists"] else {
            Issue.record("the lists page's model has its lists")
            return
        }
        #expect(lists["hasLists"] == .bool(true))
        #expect(
            rows == [
                .object([
                    "id": .string(Self.list), "name": .string("Shop"), "count": .int(2), "order": .int(0),
                    "arrows": WebPageModels.arrows(0, of: [0]), "hasMergeTargets": .bool(false),
                    "mergeTargets": .array([]),
                ])
            ])
        var random = SeededRandom(seed: 8)
        try replica.moveItem(id: Self.bread, to: 0, at: 5_000, random: &random)
        let expected = WebPageModels.list(
            .init(id: Self.list, name: "Shop"),
            items: [
                .init(
                    id: Self.bread, title: "bread", description: "", quantity: nil, isCrossedOut: false, orderNumber: 0,
                    images: [])
            ], isEmpty: false, showCrossedOut: false, otherLists: [])
        #expect(try replica.listPage(Self.list) == expected)
        #expect(throws: CardboxError.notFound(kind: "list", reference: "nope")) { try replica.listPage("nope") }
    }

    @Test("a list's items follow merged moves between lists and deletes, not only writes made here")
    func itemsFollowMerges() throws {
        var replica = ReplicaRecords(schema: SyncRegistry.replicaSchema, replicaId: "web")
        var other = Self.listRow(name: "Other", at: 1_000)
        other.id = Self.bread
        try replica.receive(
            Self.wire([Self.listRow(name: "Shop", at: 1_000), other, Self.itemRow(at: 1_000)]), milliseconds: 2_000)
        #expect(replica.items(ofList: Self.list).map(\.id) == [Self.item])
        var moved = Self.itemRow(at: 1_500, listId: Self.bread)
        moved.fields = moved.fields.filter { $0.key == "placement" }
        try replica.receive(Self.wire([moved]), milliseconds: 2_000)
        #expect(replica.items(ofList: Self.list).isEmpty)
        #expect(replica.items(ofList: Self.bread).map(\.id) == [Self.item])
        // An older move loses, field by field: the item stays where the later one put it.
        try replica.receive(Self.wire([Self.itemRow(at: 1_200)]), milliseconds: 2_000)
        #expect(replica.items(ofList: Self.bread).map(\.id) == [Self.item])
        let gone = Tombstone(entity: .item, id: Self.item, clock: Self.clock(1_800))
        try replica.receive(Self.wire([], [gone]), milliseconds: 2_000)
        #expect(replica.items(ofList: Self.bread).isEmpty && replica.items(ofList: Self.list).isEmpty)
    }
}
