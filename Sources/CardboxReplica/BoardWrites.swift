/// Boards on a replica that holds records by name (the browser's): a card moved within and across
/// a board's columns as `BoardStore.moveBoardCard` moves it (the same checks, messages and position
/// keys), and the board pages' models (`WebPageModels.boards`, `board`) made from the records.
extension ReplicaRecords {
    var boardEntity: NamedEntity { schema.entity(named: "board")! }
    var boardColumnEntity: NamedEntity { schema.entity(named: "boardColumn")! }
    var boardCardEntity: NamedEntity { schema.entity(named: "boardCard")! }
    var columnPlacement: ReplicaSchema.Parent { schema.parents(of: boardColumnEntity)[0] }
    var boardCardPlacement: ReplicaSchema.Parent { schema.parents(of: boardCardEntity)[0] }

    /// A board card's `placement` field: its column and its key there (one field, so a move is one write).
    private static func cardPlacement(_ columnId: String, _ position: String) -> JSONValue {
        .object(["columnId": .string(columnId), "position": .string(position)])
    }

    /// Moves a board card to `index` (0-based) among the other cards of `columnId` (nil: its own
    /// column), or to the end (nil), archived cards counted; a column of another board is refused.
    public mutating func moveBoardCard(
        id: String, to index: Int?, column columnId: String?, at milliseconds: UInt64,
        random: inout some RandomNumberGenerator
    ) throws(CardboxError) {
        let key = Key(boardCardEntity, id)
        guard isVisible(key), let card = records.rows[key], let from = boardCardPlacement.parentId(in: card) else {
            throw CardboxError.notFound(kind: "board card", reference: id)
        }
        let target = columnId ?? from
        guard isVisible(Key(boardColumnEntity, target)), let column = records.rows[Key(boardColumnEntity, target)]
        else { throw CardboxError.notFound(kind: "column", reference: target) }
        let board = records.rows[Key(boardColumnEntity, from)].flatMap { columnPlacement.parentId(in: $0) }
        guard columnPlacement.parentId(in: column) == board else {
            throw CardboxError.invalid(field: "column", reason: "cards move between columns of the same board only")
        }
        let others = cards(ofColumn: target).filter { $0.id != id }
        try Self.checkSlot(index, among: others)
        let clock = tick(milliseconds)
        let position = try place(
            at: index, among: others, placement: { Self.cardPlacement(target, $0) }, clock: clock, random: &random)
        update(
            key, ["placement": Self.cardPlacement(target, position), "modifiedAt": .int(Int64(milliseconds))],
            at: clock)
    }

    /// A column's cards as a person sees them, archived ones included: by position key, then id.
    func cards(ofColumn columnId: String) -> [ReplicaRow<NamedEntity>] {
        visibleChildren(boardCardEntity, parent: boardCardPlacement, of: columnId).sorted(by: Self.byPlace)
    }

    /// The boards page: every board a person sees, oldest first, then by id (as `BoardStore.boards()`).
    public func boardsPage() -> JSONValue {
        WebPageModels.boards(
            visibleTopLevelRows(boardEntity).sorted {
                (Self.time($0, "createdAt"), $0.id) < (Self.time($1, "createdAt"), $1.id)
            }.map {
                WebPageModels.ListName(id: $0.id, name: Self.text($0, "boardTitle"))
            })
    }

    /// A board's page: its columns in order, each with its cards (archived ones shown when
    /// `archived`); seed 003's not-found for a board a person does not see.
    public func boardPage(_ id: String, archived: Bool) throws(CardboxError) -> JSONValue {
        let key = Key(boardEntity, id)
        guard isVisible(key), let board = records.rows[key] else {
            throw CardboxError.notFound(kind: "board", reference: id)
        }
        let columns = visibleChildren(boardColumnEntity, parent: columnPlacement, of: id).sorted(by: Self.byPlace)
        return WebPageModels.board(
            WebPageModels.ListName(id: id, name: Self.text(board, "boardTitle")), archived: archived,
            columns: columns.map { column in
                WebPageModels.BoardColumn(
                    id: column.id, title: Self.text(column, "listTitle"),
                    cards: cards(ofColumn: column.id).enumerated().map { orderNumber, card in
                        var description: String?
                        if case .string(let text)? = card.fields["cardDescription"]?.value { description = text }
                        return WebPageModels.BoardCard(
                            id: card.id, title: Self.text(card, "cardTitle"), description: description,
                            isArchived: card.fields["isArchived"]?.value == .bool(true), orderNumber: orderNumber)
                    })
            })
    }
}
