import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Create, show and order lists (shopping lists, checklists, …).",
        discussion: "Examples:\n  cardbox list create Groceries\n  cardbox list show Groceries --all",
        subcommands: [
            Create.self, List.self, Show.self, Rename.self, Delete.self, Merge.self, Move.self, ClearCrossed.self,
        ])

    static func describe(_ list: ItemList) -> String {
        "\(list.orderNumber). \(list.name)  \(Console.short(list.id))"
    }

    static func describe(_ item: Item, numbered: Bool = true) -> String {
        var line = (numbered ? "\(item.orderNumber). " : "") + "\(item.isCrossedOut ? "[x]" : "[ ]") \(item.title)"
        if let quantity = item.quantity { line += " ×\(quantity)" }
        line += "  \(Console.short(item.id))"
        if let images = item.images, !images.isEmpty {
            line += "  (\(Wording.counted(images.count, "image")))"
        }
        return line
    }

    struct Create: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a list (at the end, or at --position).",
            discussion: "Example:\n  cardbox list create Groceries")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list's name (1–100 characters).") var name: String
        @Option(
            parsing: .unconditional, help: "Where to put it among the lists, counting from 0; end (or -1) for the last."
        )
        var position: Position?

        func run(store: CardboxStore) throws {
            try Console.emit(try store.createList(name: name, position: position?.index), json: output.json) {
                "created list \(ListCommand.describe($0))"
            }
        }
    }

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the lists in order.", discussion: "Example:\n  cardbox list list")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            try Console.emit(try store.lists(), json: output.json) { lists in
                lists.isEmpty ? "no lists yet" : lists.map(ListCommand.describe).joined(separator: "\n")
            }
        }
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a list's items in order; crossed-out items only with --all.",
            discussion: Help.paragraphs(
                """
                Crossed-out items are hidden unless --all is given or the showCrossedOutItems setting is on.

                Example:
                  cardbox list show Groceries --all --json
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list (id or name).") var list: String
        @Flag(help: "Include crossed-out items.") var all = false

        func run(store: CardboxStore) throws { try Self.show(list, all: all, json: output.json, in: store) }

        /// Prints the list's items (`list show`, and `item list` by its other name).
        static func show(_ list: String, all: Bool, json: Bool, in store: CardboxStore) throws {
            // One read of every item; the store's rule (--all, else the showCrossedOutItems setting) picks.
            let full = try store.list(try store.resolve(list), includeCrossedOut: true)
            var shown = full
            let showCrossedOut = try all || store.settings().showCrossedOutItems
            if !showCrossedOut {
                shown.items = full.items?.filter { !$0.isCrossedOut }
            }
            let hidden = (full.items?.count ?? 0) - (shown.items?.count ?? 0)
            try Console.emit(shown, json: json) { list in
                let items = list.items ?? []
                var lines = [list.name]
                if items.isEmpty { lines.append("(no items)") }
                // Bullets, not order numbers: with crossed-out items hidden the numbers would have gaps.
                for item in items {
                    lines.append("- " + ListCommand.describe(item, numbered: false))
                    lines += Console.indented(item.description)
                }
                if hidden > 0 { lines.append("(\(hidden) crossed out, hidden; --all shows them)") }
                return lines.joined(separator: "\n")
            }
        }
    }

    struct ClearCrossed: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-crossed", abstract: "Delete a list's crossed-out items (and their images).",
            discussion: "Example:\n  cardbox list clear-crossed Groceries")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The list (id or name).") var list: String

        func run(store: CardboxStore) throws {
            let count = try store.clearCrossedOut(in: try store.resolve(list))
            Terminal.current.print("deleted \(Wording.counted(count, "crossed-out item"))")
        }
    }

    struct Rename: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a list.", discussion: "Example:\n  cardbox list rename Groceries \"Weekly shop\"")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list (id or name).") var list: String
        @Argument(help: "Its new name.") var newName: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.renameList(try store.resolve(list), to: newName), json: output.json) {
                "renamed list \(ListCommand.describe($0))"
            }
        }
    }

    struct Merge: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Move a list's items to the end of another list, in order; delete it.",
            discussion: "For two lists of one name, name them by their short ids.\n\nExample:\n"
                + "  cardbox list merge 9e2f1b77 --into 41aa0c9d")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list to merge away (id or name).") var list: String
        @Option(help: "The list that takes its items (id or name).") var into: String

        func run(store: CardboxStore) throws {
            let merged = try store.mergeList(try store.resolve(list), into: try store.resolve(into))
            try Console.emit(merged, json: output.json) { "merged into \(ListCommand.describe($0))" }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a list with its items and their images.",
            discussion: "Example:\n  cardbox list delete Groceries")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The list (id or name).") var list: String

        func run(store: CardboxStore) throws {
            let found = try store.list(try store.resolve(list), includeCrossedOut: true)
            try store.deleteList(found.id)
            Terminal.current.print(
                "deleted list \(found.name) and its \(Wording.counted(found.items?.count ?? 0, "item"))")
        }
    }

    struct Move: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move a list to another position among the lists.",
            discussion: "Example:\n  cardbox list move Groceries --position 0")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list (id or name).") var list: String
        @Option(parsing: .unconditional, help: "The new position, counting from 0; end (or -1) for the last.")
        var position: Position

        func run(store: CardboxStore) throws {
            try Console.emit(try store.moveList(try store.resolve(list), to: position.index), json: output.json) {
                "moved list \(ListCommand.describe($0))"
            }
        }
    }
}

struct ItemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item", abstract: "Add, edit, cross out and order the items of a list.",
        discussion:
            "Examples:\n  cardbox item add Groceries Milk --quantity 2\n  cardbox item move 5d2e91aa --position 0",
        subcommands: [
            Add.self, Show.self, ListItems.self, Edit.self, Cross.self, Move.self, Delete.self, ImageCommand.self,
        ])

    /// `list show` under the name people reach for among the item commands.
    struct ListItems: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Show a list's items in order (the same as 'list show').",
            discussion: "Example:\n  cardbox item list Groceries --all")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list (id or name).") var list: String
        @Flag(help: "Include crossed-out items.") var all = false

        func run(store: CardboxStore) throws {
            try ListCommand.Show.show(list, all: all, json: output.json, in: store)
        }
    }

    struct Add: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an item to a list (at the end, or at --position).",
            discussion: "Example:\n  cardbox item add Groceries Milk --quantity 2 --description \"2% organic\"")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The list (id or name).") var list: String
        @Argument(help: "The item's title (1–200 characters).") var title: String
        @Option(help: "A description (up to 50,000 characters).") var description = ""
        @Option(parsing: .unconditional, help: "A quantity (a 32-bit integer; 0 and negative ones too).")
        var quantity: String?
        @Option(parsing: .unconditional, help: "Where to put it, counting from 0; end (or -1) for the last.")
        var position: Position?

        func run(store: CardboxStore) throws {
            let item = try store.addItem(
                to: try store.resolve(list), title: title, description: description,
                quantity: try quantity.flatMap { try Validate.quantity(text: $0) }, position: position?.index)
            try Console.emit(item, json: output.json) { "added \(ListCommand.describe($0))" }
        }
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one item.", discussion: "Example:\n  cardbox item show 5d2e")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The item: its title, id or short id.") var item: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.item(try store.resolve(item)), json: output.json) { item in
                [ListCommand.describe(item), item.description].filter { !$0.isEmpty }.joined(separator: "\n")
            }
        }
    }

    struct Edit: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change an item's title, description or quantity.",
            discussion: "Example:\n  cardbox item edit 5d2e --quantity 3\n  cardbox item edit 5d2e --no-quantity")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The item: its title, id or short id.") var item: String
        @Option(help: "A new title (1–200 characters).") var title: String?
        @Option(help: "A new description (up to 50,000 characters; empty removes it).") var description: String?
        @Option(parsing: .unconditional, help: "A quantity (a 32-bit integer; 0 and negative ones too).")
        var quantity: String?
        @Flag(help: "Remove the quantity.") var noQuantity = false

        func validate() throws {
            if noQuantity && quantity != nil { throw ValidationError("use either --quantity or --no-quantity") }
        }

        func run(store: CardboxStore) throws {
            var changes = ItemChanges(title: title, description: description)
            if noQuantity { changes.quantity = .some(nil) }
            if let quantity { changes.quantity = .some(try Validate.quantity(text: quantity)) }
            try Console.emit(try store.editItem(try store.resolve(item), changes), json: output.json) {
                "updated \(ListCommand.describe($0))"
            }
        }
    }

    struct Cross: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "cross",
            abstract: "Cross an item out (done), or back in with --undo.",
            discussion: "Example:\n  cardbox item cross 5d2e")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The item: its title, id or short id.") var item: String
        @Flag(help: "Uncross the item.") var undo = false

        func run(store: CardboxStore) throws {
            try Console.emit(try store.crossItem(try store.resolve(item), crossedOut: !undo), json: output.json) {
                ($0.isCrossedOut ? "crossed out " : "uncrossed ") + ListCommand.describe($0)
            }
        }
    }

    struct Move: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move an item to a position in its list, or into another list.",
            discussion: "Example:\n  cardbox item move 5d2e --position 0 --to-list Hardware")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The item: its title, id or short id.") var item: String
        @Option(parsing: .unconditional, help: "The new position, counting from 0; end (or -1) for the last.")
        var position: Position?
        @Option(help: "Move into this list (id or name); at its end unless --position says.") var toList: String?

        func validate() throws {
            if position == nil && toList == nil { throw ValidationError("give --position, --to-list or both") }
        }

        func run(store: CardboxStore) throws {
            try Console.emit(
                try store.moveItem(
                    try store.resolve(item), to: position?.index, inList: try toList.map { try store.resolve($0) }),
                json: output.json
            ) {
                "moved \(ListCommand.describe($0))"
            }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete an item and its images.", discussion: "Example:\n  cardbox item delete 5d2e")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The item: its title, id or short id.") var item: String

        func run(store: CardboxStore) throws {
            let found = try store.item(try store.resolve(item))
            try store.deleteItem(found.id)
            Terminal.current.print("deleted \(found.title)")
        }
    }

    struct ImageCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "image", abstract: "Attach, list and remove an item's images.",
            discussion: "Examples:\n  cardbox item image add 5d2e91aa receipt.jpg\n  cardbox item image list 5d2e91aa",
            subcommands: [Add.self, List.self, Get.self, Remove.self])

        static func describe(_ image: ItemImage) -> String {
            "\(image.orderNumber). \(Console.short(image.id))  \(image.mimeType)  \(image.byteCount) bytes"
        }

        struct Add: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Attach an image: JPEG, PNG or HEIC (by content), at most 5 MB, at most 10 per item.",
                discussion: "Example:\n  cardbox item image add 5d2e receipt.jpg")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The item: its title, id or short id.") var item: String
            @Argument(help: "The image file.") var file: String

            func run(store: CardboxStore) throws {
                let data = try Console.readFile(file, field: "image", limit: Limits.imageBytes)
                try Console.emit(try store.addItemImage(to: try store.resolve(item), data: data), json: output.json) {
                    "attached \(ImageCommand.describe($0))"
                }
            }
        }

        struct Get: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "get",
                abstract: "Write an attached image out to a file, as stored (shrunk to 2048 px when it was larger).",
                discussion: "Example:\n  cardbox item image get 7a01 -o receipt.jpg")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The image's id (or its short id, from 'item image list').") var image: String
            @Option(name: [.short, .customLong("output")], help: "The file to write.") var output: String

            func run(store: CardboxStore) throws {
                let (image, data) = try store.itemImageData(try store.resolve(image))
                try Console.writeFile(data, to: output)
                Terminal.current.print("wrote \(image.byteCount) bytes (\(image.mimeType)) to \(output)")
            }
        }

        struct List: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List an item's images.", discussion: "Example:\n  cardbox item image list 5d2e")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The item: its title, id or short id.") var item: String

            /// An item image with its dimensions and thumbnail, for --json.
            struct Listed: Encodable {
                var image: ItemImage
                var summary: ImageSummary

                func encode(to encoder: any Encoder) throws {
                    try image.encode(to: encoder)
                    var container = encoder.container(keyedBy: Keys.self)
                    try container.encode(summary.width, forKey: .width)
                    try container.encode(summary.height, forKey: .height)
                    try container.encode(summary.thumbnail, forKey: .thumbnail)
                }
                enum Keys: String, CodingKey { case width, height, thumbnail }
            }

            func run(store: CardboxStore) throws {
                let images = try store.itemImages(of: try store.resolve(item)).map {
                    Listed(image: $0, summary: try ImageSummary(store: store, sha256: $0.sha256))
                }
                try Console.emit(images, json: output.json) { images in
                    images.isEmpty
                        ? "no images"
                        : images.map {
                            "\(ImageCommand.describe($0.image))  \($0.summary.width) × \($0.summary.height)"
                        }.joined(separator: "\n")
                }
            }
        }

        struct Remove: StoreCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Remove an image from its item.", discussion: "Example:\n  cardbox item image remove 77af")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The image's id (or its short id).") var image: String

            func run(store: CardboxStore) throws {
                try store.removeItemImage(try store.resolve(image))
                Terminal.current.print("removed image \(image)")
            }
        }
    }
}
