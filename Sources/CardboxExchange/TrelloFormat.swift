import CardboxCore
import CardboxStore
import Foundation

/// A Trello board export (Board menu → Print and export → JSON): its open lists become columns in
/// Trello's order; cards keep their title, description, order and archived state.
public enum TrelloFormat {
    struct Export: Decodable {
        var name: String?
        var lists: [List]?
        var cards: [Card]?
        var prefs: JSONValue?
        var idOrganization: String?
    }

    struct List: Decodable {
        var id: String
        var name: String?
        var closed: Bool?
        var pos: Double?
    }

    struct Card: Decodable {
        var id: String?
        var name: String?
        var desc: String?
        var idList: String?
        var closed: Bool?
        var pos: Double?
    }

    /// Whether `data` looks like a Trello board export.
    /// Whether a JSON document has a Trello board export's top level (`name`, `lists`, `cards`), told
    /// from a depth-guarded byte scan; the document is parsed once, by `read`.
    public static func matches(_ data: Data) -> Bool {
        guard let keys = try? InputGuard.topLevelKeys(data, file: "") else { return false }
        return keys.isSuperset(of: ["name", "lists", "cards"])
    }

    /// Reads a board export. Archived lists are left out, with their cards, and said in `skipped`.
    public static func read(_ data: Data, file: String) throws -> (board: BoardImport, skipped: [String]) {
        let export = try InputGuard.decode(Export.self, from: data, file: file)
        guard let name = export.name else { throw CardboxError.invalid(field: "\(file): name", reason: "is required") }
        guard let lists = export.lists, let cards = export.cards else {
            throw CardboxError.invalid(field: "\(file): lists", reason: "a Trello board export has lists and cards")
        }
        let ordered = lists.enumerated().sorted {
            ($0.element.pos ?? Double($0.offset), $0.offset) < ($1.element.pos ?? Double($1.offset), $1.offset)
        }
        let open = ordered.map(\.element).filter { $0.closed != true }
        let closed = Set(lists.filter { $0.closed == true }.map(\.id))
        var byList: [String: [(offset: Int, card: Card)]] = [:]
        var skippedCards = 0
        for (index, card) in cards.enumerated() {
            guard let listId = card.idList else {
                throw CardboxError.invalid(field: "\(file): cards[\(index)].idList", reason: "is required")
            }
            if closed.contains(listId) {
                skippedCards += 1
                continue
            }
            guard open.contains(where: { $0.id == listId }) else {
                throw CardboxError.invalid(
                    field: "\(file): cards[\(index)].idList", reason: "'\(listId)' is not a list of the board")
            }
            byList[listId, default: []].append((index, card))
        }
        let columns = try open.map { list in
            BoardImport.Column(
                title: list.name ?? "",
                cards: try (byList[list.id] ?? []).sorted {
                    ($0.card.pos ?? Double($0.offset), $0.offset) < ($1.card.pos ?? Double($1.offset), $1.offset)
                }
                .map { offset, card in
                    guard let title = card.name else {
                        throw CardboxError.invalid(field: "\(file): cards[\(offset)].name", reason: "is required")
                    }
                    return BoardImport.Card(title: title, description: card.desc, isArchived: card.closed ?? false)
                })
        }
        var skipped: [String] = []
        if !closed.isEmpty {
            skipped.append(
                "\(Wording.counted(closed.count, "archived list")) with \(Wording.counted(skippedCards, "card"))"
            )
        }
        return (BoardImport(title: name, columns: columns), skipped)
    }
}
