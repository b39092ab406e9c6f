import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation
import Testing

@Suite("Trello board exports")
struct TrelloFormatTests {
    static let export = """
        {"id": "b1", "name": "Home", "prefs": {"background": "blue"},
         "lists": [
           {"id": "l2", "name": "Doing", "closed": false, "pos": 32768},
           {"id": "l1", "name": "To do", "closed": false, "pos": 16384},
           {"id": "l3", "name": "Old", "closed": true, "pos": 65536}],
         "cards": [
           {"id": "c1", "name": "Paint", "desc": "white, two coats", "idList": "l1", "closed": false, "pos": 200},
           {"id": "c2", "name": "Mow", "desc": "", "idList": "l1", "closed": true, "pos": 100},
           {"id": "c3", "name": "Shop", "desc": "", "idList": "l2", "closed": false, "pos": 1},
           {"id": "c4", "name": "Forgotten", "idList": "l3", "closed": false, "pos": 1}]}
        """

    @Test("lists become columns in Trello's order; cards keep title, description, order and archived state")
    func board() throws {
        let (board, skipped) = try TrelloFormat.read(Data(Self.export.utf8), file: "home.json")
        #expect(TrelloFormat.matches(Data(Self.export.utf8)) && !ListAllFormat.matches(Data(Self.export.utf8)))
        #expect(board.title == "Home" && board.columns.map(\.title) == ["To do", "Doing"])
        #expect(board.columns[0].cards.map(\.title) == ["Mow", "Paint"])
        #expect(board.columns[0].cards.map(\.isArchived) == [true, false])
        #expect(skipped == ["1 archived list with 1 card"])
        let store = try CardboxStore.inMemory()
        let (created, report) = try store.importBoard(board)
        #expect(report.created == ["board": 1, "column": 2, "card": 3])
        let shown = try store.board(created.id)
        #expect(shown.columns?.map { $0.cards?.map(\.cardTitle) ?? [] } == [["Paint"], ["Shop"]])
        #expect(shown.columns?[0].cards?[0].cardDescription == "white, two coats")
        #expect(shown.columns?[0].cards?[0].orderNumber == 1)
        let all = try store.board(created.id, includeArchived: true)
        #expect(all.columns?[0].cards?.map(\.cardTitle) == ["Mow", "Paint"])
        let mow = try #require(all.columns?[0].cards?[0])
        #expect(try !store.setBoardCardArchived(mow.id, false).isArchived)
        #expect(try store.board(created.id).columns?[0].cards?.count == 2)
    }

    @Test(
        "bad exports name the record and the field; nothing is created",
        arguments: [
            (
                #"{"name": "x", "lists": [{"id": "l1", "name": "a"}], "cards": [{"name": "c", "idList": "zz"}]}"#,
                "home.json: cards[0].idList: 'zz' is not a list of the board"
            ),
            (#"{"lists": [], "cards": []}"#, "home.json: name: is required"),
            (
                #"{"name": "x", "lists": [{"id": "l1", "name": ""}], "cards": []}"#,
                "columns[0].column title: cannot be empty"
            ),
            (
                #"{"name": "x", "lists": [{"id": "l1", "name": "a"}], "cards": [{"name": "\#(String(repeating: "n", count: 201))", "idList": "l1"}]}"#,
                "columns[0].cards[0].card title: must be 1 to 200 characters, got 201"
            ),
        ])
    func badExports(json: String, message: String) throws {
        let store = try CardboxStore.inMemory()
        #expect {
            _ = try store.importBoard(try TrelloFormat.read(Data(json.utf8), file: "home.json").board)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(message) == true
        }
        #expect(try store.boards().isEmpty)
    }
}
