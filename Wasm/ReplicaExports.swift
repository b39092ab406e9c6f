// The browser's replica as a WebAssembly interface, compiled with Sources/CardboxReplica into one
// Embedded Swift module (with Wasm/Runtime for memory). Text goes in through memory the page
// allocates (`allocate`, then `release`) and comes out through one output buffer (`outputPointer`,
// `outputLength`). `Sources/CardboxHTTP/Web/Scripts/replica.js` is the page's side of it.

nonisolated(unsafe) var replica: ReplicaRecords? = nil
nonisolated(unsafe) var output: [UInt8] = []

/// Status codes: 0 done; 1 refused, `output` says why.
func refuse(_ problem: some CustomStringConvertible) -> Int32 {
    output = Array(problem.description.utf8)
    return 1
}

func text(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> String {
    String(decoding: UnsafeBufferPointer(start: pointer, count: Int(count)), as: UTF8.self)
}

@_expose(wasm, "allocate") @_cdecl("allocate")
func allocate(_ count: Int32) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: Int(max(count, 1)), alignment: 16)
}

@_expose(wasm, "release") @_cdecl("release")
func release(_ pointer: UnsafeMutableRawPointer) { pointer.deallocate() }

@_expose(wasm, "outputPointer") @_cdecl("outputPointer")
func outputPointer() -> UnsafeRawPointer { output.withUnsafeBytes { $0.baseAddress! } }

@_expose(wasm, "outputLength") @_cdecl("outputLength")
func outputLength() -> Int32 { Int32(output.count) }

/// Reads a request's JSON text; nil (with `output` saying why) when it is not JSON.
func request(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ name: String) -> WireValue? {
    do throws(JSONParser.Failure) {
        return WireValue(try JSONParser.parse(text(pointer, count)), name)
    } catch {
        _ = refuse("\(name): \(error.description)")
        return nil
    }
}

/// Starts an empty replica: `{"replicaId": "…", "schema": ReplicaSchema.json}`.
@_expose(wasm, "configure") @_cdecl("configure")
func configure(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let root = request(pointer, count, "configure") else { return 1 }
    do throws(WireProblem) {
        replica = ReplicaRecords(
            schema: try ReplicaSchema(json: root.member("schema").value),
            replicaId: try root.member("replicaId").string())
    } catch {
        return refuse(error)
    }
    return 0
}

/// A generator seeded by the page (from `crypto.getRandomValues`; a test gives a fixed seed): the
/// same xoshiro256** as the native `SeededRandom`, so a seed draws the same position keys.
struct SeededGenerator: RandomNumberGenerator {
    var generator: Xoshiro256StarStar

    init(seed: UInt64) { generator = Xoshiro256StarStar(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }
}

/// Runs a write on the replica (a list's, an answer): `write` reads the request and writes; a
/// refusal is the write's message.
func replicaWrite(
    _ pointer: UnsafePointer<UInt8>, _ count: Int32, _ name: String,
    _ write: (WireValue, inout ReplicaRecords) throws(CardboxError) -> Void
) -> Int32 {
    guard replica != nil else { return refuse("configure the replica first") }
    guard let root = request(pointer, count, name) else { return 1 }
    do throws(CardboxError) {
        try write(root, &replica!)
    } catch {
        return refuse(error.message)
    }
    return 0
}

/// A request's member as the write reads it: a malformed request is refused as invalid input.
extension WireValue {
    func text(_ name: String) throws(CardboxError) -> String {
        do throws(WireProblem) { return try member(name).string() } catch {
            throw CardboxError.invalid(field: error.field, reason: error.reason)
        }
    }

    func optional(_ name: String) -> JSONValue {
        if case .object(let members) = value, let member = members[name] { return member }
        return .null
    }

    /// Whether the request names `name` at all (`null` included).
    func has(_ name: String) -> Bool {
        if case .object(let members) = value { return members[name] != nil }
        return false
    }

    /// A text member that may be left out (nil); any other value is refused.
    func optionalText(_ name: String) throws(CardboxError) -> String? {
        guard has(name) else { return nil }
        return try text(name)
    }
}

/// A quantity as a request gives it: nil (`null`) or a whole number in the store's range.
func quantity(_ value: JSONValue) throws(CardboxError) -> Int32? {
    switch value {
    case .null: return nil
    case .int(let value): return try Validate.quantity(Int(value))
    default: throw CardboxError.invalid(field: "quantity", reason: "must be a whole number")
    }
}

/// Adds an item at the end of a list: `{"id", "listId", "title", "description", "quantity"}`, at
/// `milliseconds`, with position keys drawn from `seed`.
@_expose(wasm, "addItem") @_cdecl("addItem")
func addItem(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double, _ seed: UInt64) -> Int32 {
    replicaWrite(pointer, count, "addItem") { request, records throws(CardboxError) in
        var random = SeededGenerator(seed: seed)
        let quantity = try quantity(request.optional("quantity"))
        let description: String
        if case .string(let text) = request.optional("description") { description = text } else { description = "" }
        try records.addItem(
            id: try request.text("id"), listId: try request.text("listId"), title: try request.text("title"),
            description: description, quantity: quantity, at: UInt64(milliseconds), random: &random)
    }
}

/// Makes a list after the others: `{"id", "name"}`, at `milliseconds`, its key drawn from `seed`.
@_expose(wasm, "createList") @_cdecl("createList")
func createList(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double, _ seed: UInt64) -> Int32 {
    replicaWrite(pointer, count, "createList") { request, records throws(CardboxError) in
        var random = SeededGenerator(seed: seed)
        try records.createList(
            id: try request.text("id"), name: try request.text("name"), at: UInt64(milliseconds), random: &random)
    }
}

/// Changes an item: `{"id", "title", "description", "quantity"}`, each but the id left out when it
/// stays (a `null` quantity takes it away).
@_expose(wasm, "editItem") @_cdecl("editItem")
func editItem(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "editItem") { request, records throws(CardboxError) in
        let newQuantity: Int32?? = request.has("quantity") ? .some(try quantity(request.optional("quantity"))) : nil
        try records.editItem(
            id: try request.text("id"), title: try request.optionalText("title"),
            description: try request.optionalText("description"), quantity: newQuantity, at: UInt64(milliseconds))
    }
}

/// Deletes an item with its pictures: `{"id"}`.
@_expose(wasm, "deleteItem") @_cdecl("deleteItem")
func deleteItem(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "deleteItem") { request, records throws(CardboxError) in
        try records.deleteItem(id: try request.text("id"), at: UInt64(milliseconds))
    }
}

/// Crosses an item out or back in: `{"id", "crossedOut": true, false or null (toggle)}`.
@_expose(wasm, "crossItem") @_cdecl("crossItem")
func crossItem(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "crossItem") { request, records throws(CardboxError) in
        let crossed: Bool?
        if case .bool(let value) = request.optional("crossedOut") { crossed = value } else { crossed = nil }
        try records.crossItem(id: try request.text("id"), crossedOut: crossed, at: UInt64(milliseconds))
    }
}

/// Moves an item within its list: `{"id", "to": an index among the others, or null for the end}`.
@_expose(wasm, "moveItem") @_cdecl("moveItem")
func moveItem(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double, _ seed: UInt64) -> Int32 {
    replicaWrite(pointer, count, "moveItem") { request, records throws(CardboxError) in
        var random = SeededGenerator(seed: seed)
        let index: Int?
        if case .int(let value) = request.optional("to") { index = Int(value) } else { index = nil }
        try records.moveItem(id: try request.text("id"), to: index, at: UInt64(milliseconds), random: &random)
    }
}

/// The account and registry version a wire form is written for: `{"accountId", "registry"}`.
func accountAndRegistry(_ request: WireValue) throws(WireProblem) -> (String, Int) {
    (try request.member("accountId").string(), Int(try request.member("registry").integer()))
}

/// Writes what waits to be sent (the wire form) to the output, for `{"accountId", "registry"}`
/// (with `"since": N`, only what writes after the N-th wrote); answers the write count to pass to
/// `markSent` once the server has it.
@_expose(wasm, "pendingChanges") @_cdecl("pendingChanges")
func pendingChanges(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    guard let root = request(pointer, count, "pendingChanges") else { return -1 }
    do throws(WireProblem) {
        let (accountId, registry) = try accountAndRegistry(root)
        let since = root.has("since") ? Int(try root.member("since").integer()) : 0
        output = Array(records.pendingText(accountId: accountId, registry: registry, since: since).utf8)
    } catch {
        _ = refuse(error)
        return -1
    }
    return Int32(records.writeCount)
}

/// How many records wait to be sent.
@_expose(wasm, "pendingCount") @_cdecl("pendingCount")
func pendingCount() -> Int32 { Int32(replica?.pending.count ?? 0) }

/// How many changes wait to be sent, as a person counts them (`ReplicaRecords.pendingOperations`).
@_expose(wasm, "pendingOperations") @_cdecl("pendingOperations")
func pendingOperations() -> Int32 { Int32(replica?.pendingOperations ?? 0) }

@_expose(wasm, "markSent") @_cdecl("markSent")
func markSent(_ count: Int32) { replica?.markSent(through: Int(count)) }

/// Merges one change set in its wire form, received at `milliseconds` (0: merge without reading
/// the clock, as a test replaying a history does).
@_expose(wasm, "applyChanges") @_cdecl("applyChanges")
func applyChanges(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    let given = text(pointer, count)
    if let read = WireChanges.read(text: given, schema: schema), read.page == nil {
        return merge(read.changes, receivedAt: milliseconds)
    }
    // Not in the form replicas write: read again to name the problem.
    let json: JSONValue
    do throws(JSONParser.Failure) {
        json = try JSONParser.parse(given)
    } catch {
        return refuse("changes: \(error.description)")
    }
    do throws(WireProblem) {
        return merge(try WireChanges(json: json, schema: schema), receivedAt: milliseconds)
    } catch {
        return refuse(error)
    }
}

/// Merges a change set received at `milliseconds` (0: without reading the clock), in place: a copy
/// of the replica would copy every record it holds. A set stamped too far ahead is refused whole.
func merge(_ changes: WireChanges, receivedAt milliseconds: Double) -> Int32 {
    guard milliseconds > 0 else {
        replica!.apply(changes)
        return 0
    }
    do throws(HybridLogicalClock.TooFarAhead) {
        try replica!.receive(changes, milliseconds: UInt64(milliseconds))
    } catch {
        return refuse("changes: stamped \(error.seconds) s in the future; check this device's clock")
    }
    return 0
}

/// Merges a page of `/v1/sync/pull` (`{"changes", "cursor", "hasMore", …}`, its text as the server
/// sent it: a clock's 64 bits do not survive JavaScript's numbers) received at `milliseconds`, and
/// writes `{"cursor", "hasMore"}` to the output.
@_expose(wasm, "applyPullPage") @_cdecl("applyPullPage")
func applyPullPage(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    func merged(_ changes: WireChanges, _ cursor: Int64, _ hasMore: Bool) -> Int32 {
        guard merge(changes, receivedAt: milliseconds) == 0 else { return 1 }
        output = Array(JSONValue.object(["cursor": .int(cursor), "hasMore": .bool(hasMore)]).jsonText.utf8)
        return 0
    }
    if let read = WireChanges.read(text: text(pointer, count), schema: schema), let page = read.page {
        return merged(read.changes, page.cursor, page.hasMore)
    }
    // Not in the form the server writes: read again to name the problem.
    guard let root = request(pointer, count, "page") else { return 1 }
    do throws(WireProblem) {
        let changes = try WireChanges(json: root.member("changes").value, schema: schema)
        return merged(changes, try root.member("cursor").integer(), try root.member("hasMore").bool())
    } catch {
        return refuse(error)
    }
}

/// Writes the replica's canonical dump (`ReplicaRecords.canonicalDump`) to the output.
@_expose(wasm, "dumpRecords") @_cdecl("dumpRecords")
func dumpRecords() -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    output = Array(records.canonicalDump().utf8)
    return 0
}

// MARK: Kept between pages

/// Writes every record held (the wire form) to the output, for `{"accountId", "registry"}`.
@_expose(wasm, "savedRecords") @_cdecl("savedRecords")
func savedRecords(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    guard let root = request(pointer, count, "savedRecords") else { return 1 }
    do throws(WireProblem) {
        let (accountId, registry) = try accountAndRegistry(root)
        output = Array(records.savedText(accountId: accountId, registry: registry).utf8)
    } catch {
        return refuse(error)
    }
    return 0
}

/// Merges something a page kept (`ReplicaPersistence`): a change set (the snapshot, a write's
/// records) or a pull page holding one (`{"changes", …}`, as the journal keeps it), the clock moved
/// past it.
@_expose(wasm, "restoreChanges") @_cdecl("restoreChanges")
func restoreChanges(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    if let read = WireChanges.read(text: text(pointer, count), schema: schema) {
        replica!.restore(read.changes)
        return 0
    }
    guard let root = request(pointer, count, "kept") else { return 1 }
    do throws(WireProblem) {
        let changes = root.has("changes") ? try root.member("changes").value : root.value
        replica!.restore(try WireChanges(json: changes, schema: schema))
    } catch {
        return refuse(error)
    }
    return 0
}

/// Takes what waits to be sent from what `pendingChanges` wrote, in place of what was pending.
@_expose(wasm, "resumePending") @_cdecl("resumePending")
func resumePending(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    if let read = WireChanges.read(text: text(pointer, count), schema: schema), read.page == nil {
        replica!.resume(pending: read.changes)
        return 0
    }
    guard let root = request(pointer, count, "pending") else { return 1 }
    do throws(WireProblem) {
        replica!.resume(pending: try WireChanges(json: root.value, schema: schema))
    } catch {
        return refuse(error)
    }
    return 0
}

/// Sets aside a record the server refused: `{"entity", "id"}`; writes its label (a name, title or
/// front, else its id) to the output.
@_expose(wasm, "setAside") @_cdecl("setAside")
func setAside(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    guard let root = request(pointer, count, "setAside") else { return 1 }
    do throws(WireProblem) {
        let name = try root.member("entity").string()
        guard let entity = schema.entity(named: name) else { return refuse("setAside: '\(name)' is not an entity") }
        let key = ReplicaRecords.Key(entity, try root.member("id").string())
        replica!.setAside(key)
        output = Array(replica!.label(of: key).utf8)
    } catch {
        return refuse(error)
    }
    return 0
}

/// How many writes this replica has made: `pendingChanges`' `since` for the records of the next.
@_expose(wasm, "writeCount") @_cdecl("writeCount")
func writeCount() -> Int32 { Int32(replica?.writeCount ?? 0) }

// MARK: What the offline pages show

/// Writes the lists page's model (`ReplicaRecords.listsPage`) to the output.
@_expose(wasm, "listsPage") @_cdecl("listsPage")
func listsPage() -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    output = Array(records.listsPage().jsonText.utf8)
    return 0
}

/// Writes a view of one record to the output, `view(records, id)` with the record's id as the text;
/// a refusal is the view's message.
func recordView(
    _ pointer: UnsafePointer<UInt8>, _ count: Int32,
    _ view: (ReplicaRecords, String) throws(CardboxError) -> JSONValue
) -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    do throws(CardboxError) {
        output = Array(try view(records, text(pointer, count)).jsonText.utf8)
    } catch {
        return refuse(error.message)
    }
    return 0
}

/// Writes a view the JSON request `{…}` asks for to the output, `view(request, records)`; a request
/// that is not JSON, or a refusal, is its message.
func requestView(
    _ pointer: UnsafePointer<UInt8>, _ count: Int32, _ name: String,
    _ view: (WireValue, ReplicaRecords) throws(CardboxError) -> JSONValue
) -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    guard let root = request(pointer, count, name) else { return 1 }
    do throws(CardboxError) {
        output = Array(try view(root, records).jsonText.utf8)
    } catch {
        return refuse(error.message)
    }
    return 0
}

/// Writes a list page's model (`ReplicaRecords.listPage`) to the output; the list's id is the text.
@_expose(wasm, "listPage") @_cdecl("listPage")
func listPage(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    recordView(pointer, count) { records, id throws(CardboxError) in try records.listPage(id) }
}

/// Sets seed 002's `showCrossedOutItems` setting: `{"show": true or false}`, at `milliseconds`.
@_expose(wasm, "showCrossedOut") @_cdecl("showCrossedOut")
func showCrossedOut(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "showCrossedOut") { request, records throws(CardboxError) in
        guard case .bool(let show) = request.optional("show") else {
            throw CardboxError.invalid(field: "show", reason: "must be true or false")
        }
        try records.showCrossedOutItems(show, at: UInt64(milliseconds))
    }
}

/// Moves a board card: `{"id", "column" (or null: its own), "to": its index there (or null: the
/// end)}`, at `milliseconds`, with `seed` for its position key.
@_expose(wasm, "moveBoardCard") @_cdecl("moveBoardCard")
func moveBoardCard(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double, _ seed: UInt64) -> Int32 {
    replicaWrite(pointer, count, "moveBoardCard") { request, records throws(CardboxError) in
        var random = SeededGenerator(seed: seed)
        var index: Int?
        if case .int(let to) = request.optional("to") { index = Int(clamping: to) }
        var column: String?
        if case .string(let id) = request.optional("column") { column = id }
        try records.moveBoardCard(
            id: try request.text("id"), to: index, column: column, at: UInt64(milliseconds), random: &random)
    }
}

/// Writes the boards page's model (`ReplicaRecords.boardsPage`) to the output.
@_expose(wasm, "boardsPage") @_cdecl("boardsPage")
func boardsPage() -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    output = Array(records.boardsPage().jsonText.utf8)
    return 0
}

/// Writes a board page's model (`ReplicaRecords.boardPage`) to the output: `{"id", "archived"}`.
@_expose(wasm, "boardPage") @_cdecl("boardPage")
func boardPage(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    requestView(pointer, count, "boardPage") { root, records throws(CardboxError) in
        try records.boardPage(try root.text("id"), archived: root.optional("archived") == .bool(true))
    }
}

// MARK: Study

/// A study day's bounds as a request gives them: `{"dayStart", "dayEnd"}` in milliseconds.
func studyDay(_ request: WireValue) throws(CardboxError) -> StudyDayBounds {
    guard case .int(let start) = request.optional("dayStart"), case .int(let end) = request.optional("dayEnd"),
        start < end
    else { throw CardboxError.invalid(field: "day", reason: "needs dayStart before dayEnd, in milliseconds") }
    return StudyDayBounds(start: start, end: end)
}

/// Answers a card of the deck being studied: `{"card", "deck", "rating", "durationMs" (or null),
/// "reviewId"}`, at `milliseconds`. With the study day (`"dayStart"`, `"dayEnd"`), only the card
/// first in the queue is answered: a page showing a card another tab answered meanwhile is refused.
@_expose(wasm, "answerCard") @_cdecl("answerCard")
func answerCard(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "answerCard") { request, records throws(CardboxError) in
        guard case .int(let rating) = request.optional("rating") else {
            throw CardboxError.invalid(field: "rating", reason: "must be 1 (again), 2 (hard), 3 (good) or 4 (easy)")
        }
        var duration: Int? = nil
        switch request.optional("durationMs") {
        case .null: break
        case .int(let value): duration = Int(clamping: value)
        default: throw CardboxError.invalid(field: "duration", reason: "must be a whole number of milliseconds")
        }
        let (card, deck, reviewId) = (try request.text("card"), try request.text("deck"), try request.text("reviewId"))
        if request.has("dayStart") {
            try records.answerFirst(
                card: card, deck: deck, rating: Int(clamping: rating), durationMs: duration, reviewId: reviewId,
                at: Int64(milliseconds), day: try studyDay(request))
        } else {
            try records.answer(
                card: card, deck: deck, rating: Int(clamping: rating), durationMs: duration, reviewId: reviewId,
                at: Int64(milliseconds))
        }
    }
}

/// Takes back the deck's latest answer: `{"deck"}`, at `milliseconds`.
@_expose(wasm, "undoAnswer") @_cdecl("undoAnswer")
func undoAnswer(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "undoAnswer") { request, records throws(CardboxError) in
        try records.undoLastAnswer(deck: try request.text("deck"), at: Int64(milliseconds))
    }
}

/// Writes a deck's study screen (`ReplicaRecords.studyView`) to the output: `{"deck", "dayStart",
/// "dayEnd"}`, at `milliseconds`.
@_expose(wasm, "studyView") @_cdecl("studyView")
func studyView(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    requestView(pointer, count, "studyView") { root, records throws(CardboxError) in
        try records.studyView(deck: try root.text("deck"), now: Int64(milliseconds), day: try studyDay(root))
    }
}

/// Writes the account's settings (`ReplicaRecords.settingValues`) to the output.
@_expose(wasm, "settingsView") @_cdecl("settingsView")
func settingsView() -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    output = Array(records.settingValues().jsonText.utf8)
    return 0
}

// MARK: Cards

/// A request's list of texts (new cards' ids); none when it is left out or null.
func texts(_ value: JSONValue, _ field: String) throws(CardboxError) -> [String] {
    if value == .null { return [] }
    guard case .array(let items) = value else {
        throw CardboxError.invalid(field: field, reason: "must be a list of ids")
    }
    var found: [String] = []
    for item in items {
        guard case .string(let text) = item else {
            throw CardboxError.invalid(field: field, reason: "must be a list of ids")
        }
        found.append(text)
    }
    return found
}

/// Adds what a person wrote to a deck (one card, or a cloze text's cards): `{"deck", "front",
/// "back", "notes", "tags": the tags field as typed, "account": the account's id (names the tags),
/// "ids": new cards' ids, more than enough}`, at `milliseconds`; writes the ids used to the output.
@_expose(wasm, "addCards") @_cdecl("addCards")
func addCards(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    var used: [String] = []
    let status = replicaWrite(pointer, count, "addCards") { request, records throws(CardboxError) in
        used = try records.addWrittenCards(
            deck: try request.text("deck"), front: try request.text("front"),
            back: try request.optionalText("back") ?? "", notes: try request.optionalText("notes") ?? "",
            tags: TagNames.split(try request.optionalText("tags") ?? ""),
            account: try request.optionalText("account") ?? "", ids: try texts(request.optional("ids"), "ids"),
            at: Int64(milliseconds))
    }
    if status == 0 { output = Array(JSONValue.array(used.map(JSONValue.string)).jsonText.utf8) }
    return status
}

/// Changes a card as its editor does: `{"card", and any of "front", "back", "notes", "cardType",
/// "frontLanguage", "backLanguage", "isFavorite" (true or false), "tags" (the field as typed: all
/// of the card's tags), "removeImage" (true); "account" (names the tags); "ids" for the cards a
/// cloze text's new deletions make}`, at `milliseconds`.
@_expose(wasm, "editCard") @_cdecl("editCard")
func editCard(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "editCard") { request, records throws(CardboxError) in
        var edit = ReplicaRecords.CardEdit(
            front: try request.optionalText("front"), back: try request.optionalText("back"),
            notes: try request.optionalText("notes"), cardType: try request.optionalText("cardType"),
            frontLanguage: try request.optionalText("frontLanguage"),
            backLanguage: try request.optionalText("backLanguage"),
            tags: try request.optionalText("tags").map(TagNames.split),
            removeImage: request.optional("removeImage") == .bool(true))
        switch request.optional("isFavorite") {
        case .bool(let favorite): edit.isFavorite = favorite
        case .null: break
        default: throw CardboxError.invalid(field: "isFavorite", reason: "must be true or false")
        }
        try records.editCard(
            card: try request.text("card"), edit, account: try request.optionalText("account") ?? "",
            ids: try texts(request.optional("ids"), "ids"), at: Int64(milliseconds))
    }
}

/// Archives, restores, deletes or marks a card as a favorite (or not): `{"card", "deck", "move":
/// "archive", "restore", "delete" or "favorite"}`, at `milliseconds`.
@_expose(wasm, "moveCard") @_cdecl("moveCard")
func moveCard(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    replicaWrite(pointer, count, "moveCard") { request, records throws(CardboxError) in
        let name = try request.text("move")
        guard let move = ReplicaRecords.CardMove(rawValue: name) else {
            throw CardboxError.invalid(field: "move", reason: "'\(name)' is none of archive, restore, delete, favorite")
        }
        try records.moveCard(
            card: try request.text("card"), deck: try request.text("deck"), move, at: Int64(milliseconds))
    }
}

/// Writes a deck's page (`ReplicaRecords.deckPage`) to the output: `{"deck", "query": [[name,
/// value], …] (the page's, decoded), "dayStart", "dayEnd"}`, at `milliseconds`.
@_expose(wasm, "deckPage") @_cdecl("deckPage")
func deckPage(_ pointer: UnsafePointer<UInt8>, _ count: Int32, _ milliseconds: Double) -> Int32 {
    requestView(pointer, count, "deckPage") { root, records throws(CardboxError) in
        var items: [(name: String, value: String)] = []
        if case .array(let pairs) = root.optional("query") {
            for pair in pairs {
                guard case .array(let both) = pair, both.count == 2, case .string(let name) = both[0],
                    case .string(let value) = both[1]
                else { throw CardboxError.invalid(field: "query", reason: "must be a list of [name, value] texts") }
                items.append((name, value))
            }
        }
        return try records.deckPage(
            .init(deck: try root.text("deck"), query: items), now: Int64(milliseconds), day: try studyDay(root))
    }
}

/// Writes a card's editor (`ReplicaRecords.cardPage`) to the output: `{"deck", "card"}`.
@_expose(wasm, "cardPage") @_cdecl("cardPage")
func cardPage(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    requestView(pointer, count, "cardPage") { root, records throws(CardboxError) in
        try records.cardPage(deck: try root.text("deck"), card: try root.text("card"))
    }
}
