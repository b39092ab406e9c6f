import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct BoardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board", abstract: "Boards of columns of cards, ordered by hand.",
        discussion:
            "Examples:\n  cardbox board create Home\n  cardbox board column add Home \"To do\"\n  cardbox board show Home",
        subcommands: [
            Create.self, List.self, Show.self, Rename.self, Delete.self, Merge.self, ColumnCommand.self,
            CardCommand.self,
        ])

    static func describe(_ board: Board) -> String { "\(board.boardTitle)  \(Console.short(board.id))" }

    static func describe(_ column: BoardColumn) -> String {
        "\(column.orderNumber). \(column.listTitle)  \(Console.short(column.id))"
    }

    static func describe(_ card: BoardCard) -> String {
        "\(card.orderNumber). \(card.cardTitle)  \(Console.short(card.id))"
    }

    struct Create: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a board.", discussion: "Example:\n  cardbox board create \"Home projects\"")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The board's title.") var title: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.createBoard(title: title), json: output.json) {
                "created board \(BoardCommand.describe($0))"
            }
        }
    }

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List boards.", discussion: "Example:\n  cardbox board list")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            try Console.emit(try store.boards(), json: output.json) { boards in
                boards.isEmpty ? "no boards yet" : boards.map(BoardCommand.describe).joined(separator: "\n")
            }
        }
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a board: its columns in order, each with its cards (archived ones with --all).",
            discussion: "Example:\n  cardbox board show \"Home projects\" --json")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The board (id or title).") var board: String
        @Flag(help: "Include archived cards.") var all = false

        func run(store: CardboxStore) throws {
            try Console.emit(try store.board(try store.resolve(board), includeArchived: all), json: output.json) {
                board in
                var lines = [board.boardTitle]
                for column in board.columns ?? [] {
                    lines.append("")
                    lines.append(BoardCommand.describe(column))
                    for card in column.cards ?? [] {
                        lines.append("    " + BoardCommand.describe(card) + (card.isArchived ? "  [archived]" : ""))
                        lines += Console.indented(card.cardDescription ?? "", by: 8)
                    }
                }
                return lines.joined(separator: "\n")
            }
        }
    }

    struct Rename: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a board.", discussion: "Example:\n  cardbox board rename \"Home projects\" Home")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The board (id or title).") var board: String
        @Argument(help: "Its new title.") var newTitle: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.renameBoard(try store.resolve(board), to: newTitle), json: output.json) {
                "renamed board \(BoardCommand.describe($0))"
            }
        }
    }

    struct Merge: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Move a board's columns and cards into another board; delete it.",
            discussion: Help.paragraphs(
                """
                A column whose title the other board has already gives its cards to that column's end;
                any other column moves to the end of the board. For two boards of one title, name them
                by their short ids.

                Example:
                  cardbox board merge 0b7d2e55 --into 41aa0c9d
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The board to merge away (id or title).") var board: String
        @Option(help: "The board that takes its columns (id or title).") var into: String

        func run(store: CardboxStore) throws {
            let merged = try store.mergeBoard(try store.resolve(board), into: try store.resolve(into))
            try Console.emit(merged, json: output.json) {
                "merged into board \($0.boardTitle)  \(Console.short($0.id))"
            }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a board with its columns and cards.",
            discussion: "Example:\n  cardbox board delete Home")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The board (id or title).") var board: String

        func run(store: CardboxStore) throws {
            let found = try store.board(try store.resolve(board))
            try store.deleteBoard(found.id)
            Terminal.current.print("deleted board \(found.boardTitle)")
        }
    }

    struct ColumnCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "column", abstract: "Add, rename, order and delete a board's columns.",
            discussion: "Examples:\n  cardbox board column add Home Doing --position 1",
            subcommands: [Add.self, Rename.self, Move.self, Delete.self])

        struct Add: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a column to a board (at the end, or at --position).",
                discussion: "Example:\n  cardbox board column add Home \"To do\"")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The board (id or title).") var board: String
            @Argument(help: "The column's title.") var title: String
            @Option(parsing: .unconditional, help: "Where to put it, counting from 0; end (or -1) for the last.")
            var position: Position?

            func run(store: CardboxStore) throws {
                try Console.emit(
                    try store.addColumn(to: try store.resolve(board), title: title, position: position?.index),
                    json: output.json
                ) {
                    "added column \(BoardCommand.describe($0))"
                }
            }
        }

        struct Rename: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "rename",
                abstract: "Rename a column.", discussion: "Example:\n  cardbox board column rename 1c9e Doing")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The column's id, short id or title.") var column: String
            @Argument(help: "Its new title.") var newTitle: String

            func run(store: CardboxStore) throws {
                try Console.emit(try store.renameColumn(try store.resolve(column), to: newTitle), json: output.json) {
                    "renamed column \(BoardCommand.describe($0))"
                }
            }
        }

        struct Move: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "move",
                abstract: "Move a column to another position on its board.",
                discussion: "Example:\n  cardbox board column move 1c9e --position 0")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The column's id, short id or title.") var column: String
            @Option(parsing: .unconditional, help: "The new position, counting from 0; end (or -1) for the last.")
            var position: Position

            func run(store: CardboxStore) throws {
                try Console.emit(try store.moveColumn(try store.resolve(column), to: position.index), json: output.json)
                {
                    "moved column \(BoardCommand.describe($0))"
                }
            }
        }

        struct Delete: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "delete",
                abstract: "Delete a column and its cards.", discussion: "Example:\n  cardbox board column delete 1c9e")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The column's id, short id or title.") var column: String

            func run(store: CardboxStore) throws {
                try store.deleteColumn(try store.resolve(column))
                Terminal.current.print("deleted column \(column)")
            }
        }
    }

    struct CardCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "card", abstract: "Add, edit, move and delete the cards of a board.",
            discussion:
                "Examples:\n  cardbox board card add 1c9e04b2 \"Paint the fence\"\n  cardbox board card move 8e31aa07 --to-column 77b0c3d1 --position 0",
            subcommands: [Add.self, Edit.self, Move.self, Archive.self, Delete.self])

        struct Add: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a card to a column (at the end, or at --position).",
                discussion:
                    "Example:\n  cardbox board card add 1c9e \"Paint the fence\" --description \"White, two coats\"")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The column's id, short id or title.") var column: String
            @Argument(help: "The card's title.") var title: String
            @Option(help: "An optional description.") var description: String?
            @Option(parsing: .unconditional, help: "Where to put it, counting from 0; end (or -1) for the last.")
            var position: Position?

            func run(store: CardboxStore) throws {
                let card = try store.addBoardCard(
                    to: try store.resolve(column), title: title, description: description, position: position?.index)
                try Console.emit(card, json: output.json) { "added card \(BoardCommand.describe($0))" }
            }
        }

        struct Edit: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "edit",
                abstract: "Change a card's title or description (empty description removes it).",
                discussion: "Example:\n  cardbox board card edit 8e31 --title \"Paint the gate\"")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The card: its title, id or short id.") var card: String
            @Option(help: "A new title (1–200 characters).") var title: String?
            @Option(help: "A new description; an empty one removes it.") var description: String?

            func run(store: CardboxStore) throws {
                try Console.emit(
                    try store.editBoardCard(try store.resolve(card), title: title, description: description),
                    json: output.json
                ) { "updated card \(BoardCommand.describe($0))" }
            }
        }

        struct Move: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "move",
                abstract: "Move a card to a position in its column or in another column of the board.",
                discussion: "Example:\n  cardbox board card move 8e31 --to-column 77b0 --position 0")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The card: its title, id or short id.") var card: String
            @Option(help: "The column to move it to (id, short id or title); at its end unless --position says.")
            var toColumn: String?
            @Option(parsing: .unconditional, help: "The new position, counting from 0; end (or -1) for the last.")
            var position: Position?

            func validate() throws {
                if position == nil && toColumn == nil { throw ValidationError("give --position, --to-column or both") }
            }

            func run(store: CardboxStore) throws {
                try Console.emit(
                    try store.moveBoardCard(
                        try store.resolve(card), to: position?.index,
                        inColumn: try toColumn.map { try store.resolve($0) }), json: output.json
                ) { "moved card \(BoardCommand.describe($0))" }
            }
        }

        struct Archive: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "archive",
                abstract: "Archive a card (hidden from the board, kept), or bring it back with --undo.",
                discussion: "Example:\n  cardbox board card archive 8e31aa07")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The card: its title, id or short id.") var card: String
            @Flag(help: "Bring the card back.") var undo = false

            func run(store: CardboxStore) throws {
                try Console.emit(try store.setBoardCardArchived(try store.resolve(card), !undo), json: output.json) {
                    ($0.isArchived ? "archived card " : "restored card ") + BoardCommand.describe($0)
                }
            }
        }

        struct Delete: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "delete",
                abstract: "Delete a card.", discussion: "Example:\n  cardbox board card delete 8e31")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The card: its title, id or short id.") var card: String

            func run(store: CardboxStore) throws {
                try store.deleteBoardCard(try store.resolve(card))
                Terminal.current.print("deleted card \(card)")
            }
        }
    }
}
