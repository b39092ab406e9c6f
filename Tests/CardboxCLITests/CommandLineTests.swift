import ArgumentParser
import CardboxCore
import CardboxImaging
import CardboxServerCLI
import CardboxStore
import Foundation
import Testing

@testable import CardboxCLI

@Suite("The real cardbox executable, as a separate process")
struct ExecutableTests {
    @Test("it runs commands on a store file, exits 0, 1 or 64, and reads standard input")
    func process() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let created = try cli.runProcess(["deck", "create", "Spanish", "--front", "es", "--back", "en"])
        #expect(created.status == 0 && created.stderr.isEmpty)
        #expect(try cli.runProcess(["card", "add", "Spanish", "hola", "hello"]).status == 0)
        let listed = try cli.runProcess(["card", "list", "Spanish", "--json"])
        let cards = try #require(try listed.json() as? [[String: Any]])
        #expect(cards.map { $0["front"] as? String } == ["hola"])
        let failed = try cli.runProcess(["card", "show", "nope"])
        #expect(failed.status == 1 && failed.stderr == "error: no card matches 'nope'\n" && failed.stdout.isEmpty)
        let misused = try cli.runProcess(["card", "add"])
        #expect(misused.status == 64 && misused.stderr.contains("(see 'cardbox card add --help')"))
        let replay = try cli.runProcess(
            ["fsrs", "replay"], store: false, input: #"{"card":"c","rating":3,"time":"2025-01-01T09:00:00Z"}"# + "\n")
        #expect(replay.status == 0 && replay.stdout.hasPrefix(#"{"card":"c","state":"learning""#))
        // The in-process run gives the same output as the process.
        #expect(try cli.run(["card", "list", "Spanish", "--json"]).stdout == listed.stdout)
    }

    @Test("serve and admin run in cardbox-server, which cardbox does not link; without it, an error names it")
    func serverProgram() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let database = cli.folder.appendingPathComponent("server.sqlite").path
        let added = try cli.runProcess(
            ["admin", "--database", database, "user", "add", "ana", "--password-stdin"], store: false,
            input: "correct horse\n")
        #expect(added.status == 0 && added.stdout.hasPrefix("added account ana (free) "), "\(added.stderr)")
        let listed = try cli.runProcess(["--store", cli.storePath, "admin", "--database", database, "user", "list"])
        #expect(listed.status == 0 && listed.stdout.hasPrefix("USER"), "\(listed.stderr)")
        let help = try cli.runProcess(["serve", "--help"], store: false)
        #expect(help.status == 0 && help.stdout.contains("--open-signup"))
        #expect(try cli.runProcess(["help", "serve"], store: false).stdout.contains("--open-signup"))
        let misused = try cli.runProcess(["admin", "user", "bogus"], store: false)
        #expect(misused.status == 64 && misused.stderr.contains("(see 'cardbox admin user --help')"))
        let bare = try cli.runProcess(["--store=\(cli.storePath)", "admin"], store: false)
        #expect(bare.status == 0 && bare.stdout.contains("USAGE: cardbox admin") && bare.stdout.contains("set-plan"))

        // The command line's own binary holds none of the server's modules.
        let binary = try CLI.builtBinary()
        let server = binary.deletingLastPathComponent().appendingPathComponent("cardbox-server")
        let built = { (url: URL) in
            try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        }
        #expect(try built(server)! > built(binary)!.addingTimeInterval(-600), "cardbox-server is older than cardbox")
        let serverOnly = ["CardboxHTTP", "PostgresNIO", "Hummingbird"].map { Data($0.utf8) }
        let cardbox = try Data(contentsOf: binary, options: .alwaysMapped)
        #expect(serverOnly.allSatisfy { cardbox.range(of: $0) == nil })
        let serverBinary = try Data(contentsOf: server, options: .alwaysMapped)
        #expect(serverOnly.allSatisfy { serverBinary.range(of: $0) != nil })

        // Alone, cardbox names what it misses and changes nothing.
        let alone = cli.folder.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: binary, to: alone.appendingPathComponent("cardbox"))
        let lonely = Process()
        lonely.executableURL = alone.appendingPathComponent("cardbox")
        lonely.arguments = ["admin", "--database", database, "user", "remove", "ana"]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: ServerProgram.program.variable)
        lonely.environment = environment
        let errors = Pipe()
        lonely.standardError = errors
        lonely.standardOutput = FileHandle.nullDevice
        try lonely.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lonely.waitUntilExit()
        #expect(lonely.terminationStatus == 1)
        #expect(message.hasPrefix("error: cardbox serve and cardbox admin need cardbox-server beside "))
        #expect(message.contains("CARDBOX_SERVER"))
        let still = try cli.runProcess(["admin", "--database", database, "user", "list"], store: false)
        #expect(still.stdout.contains("ana"))
    }

    @Test(
        "cloze cards: card add --cloze makes one per deletion, shown and studied with it hidden, JSON with its number")
    func cloze() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "D", "--front", "es", "--back", "en")
        let added = try cli.ok(
            "card", "add", "D", "--cloze", "El {{c1::gato}} {{c2::duerme::verb}}", "--extra", "The cat sleeps")
        #expect(added.contains("El [...] duerme  (c1) → The cat sleeps") && added.contains("El gato [verb]  (c2)"))
        let cards = try #require(try cli.json("card", "list", "D") as? [[String: Any]])
        #expect(cards.map { $0["clozeNumber"] as? Int } == [1, 2])
        #expect(cards.allSatisfy { $0["front"] as? String == "El {{c1::gato}} {{c2::duerme::verb}}" })
        let id = try #require(cards[1]["id"] as? String)
        let shown = try #require(try cli.json("card", "show", id) as? [String: Any])
        #expect(shown["clozeNumber"] as? Int == 2 && shown["cardType"] as? String == "cloze")
        #expect(try cli.ok("card", "show", id).contains("type: cloze  (studies deletion c2)"))
        let session = try cli.run(["study", "D"], input: " 3q")
        #expect(session.stdout.contains("El [...] duerme\n") && session.stdout.contains("El [gato] duerme"))
        #expect(session.stdout.contains("— The cat sleeps"))
        let both = try cli.run(["card", "add", "D", "front", "back", "--cloze", "{{c1::x}}"])
        #expect(both.status == 64 && both.stderr.contains("give either --cloze TEXT or a front and a back"))
        let none = try cli.run(["card", "add", "D", "--cloze", "nothing hidden"])
        #expect(none.status == 1 && none.stderr.contains("has no cloze deletion"))
        #expect(try cli.ok("card", "list", "D").split(separator: "\n").count == 2)
    }

    @Test("--version prints the version")
    func version() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let result = try cli.runProcess(["--version"], store: false)
        #expect(result.status == 0 && result.stdout == CardboxCommand.configuration.version + "\n")
    }
}

@Suite("The cardbox command line, run in process")
struct CommandLineTests {

    @Test("--help on every command explains it with an example")
    func helpEverywhere() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let paths = CLI.commandPaths()
        #expect(paths.count > 60)
        for path in paths {
            let result = try cli.run(path + ["--help"], store: false)
            #expect(result.status == 0, "\(path) --help failed")
            #expect(result.stdout.contains("USAGE"), "\(path) --help has no usage")
            #expect(result.stdout.contains("Example"), "\(path) --help has no example")
        }
        // The server's commands, as cardbox-server shows them.
        let serverPaths = CLI.commandPaths(CardboxServerCommand.self)
        #expect(serverPaths.count >= 10)
        for path in serverPaths {
            let result = try cli.runServer(path + ["--help"])
            #expect(result.status == 0, "\(path) --help failed")
            #expect(result.stdout.contains("USAGE: cardbox"), "\(path) --help has no usage")
            #expect(result.stdout.contains("Example"), "\(path) --help has no example")
        }
    }

    @Test("serve and admin are handed to cardbox-server after the global options; in process they say where they run")
    func serverCommandsRouted() throws {
        for arguments in [
            ["serve"], ["serve", "--help"], ["--store", "s.sqlite", "serve", "--port", "0"],
            ["--store=s.sqlite", "admin"],
            ["help", "serve"], ["--store", "s.sqlite", "help", "admin", "user"], ["admin", "user", "list"],
        ] {
            #expect(ServerProgram.runs(arguments), "\(arguments)")
        }
        for arguments in [
            ["deck", "show", "serve"], ["--store", "serve", "deck", "list"], ["help"], [], ["--help"], ["sync"],
            ["card", "add", "admin", "x"],
        ] {
            #expect(!ServerProgram.runs(arguments), "\(arguments)")
        }
        let cli = try CLI()
        defer { cli.remove() }
        let inProcess = try cli.run(["serve", "--port", "0"])
        #expect(inProcess.status == 1)
        #expect(inProcess.stderr.contains("cardbox serve runs in cardbox-server"))
    }

    @Test("help paragraphs are left for the parser to wrap once; every argument and option says what it is")
    func helpText() throws {
        func commands(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
            [command] + command.configuration.subcommands.flatMap(commands)
        }
        for command in commands(CardboxCommand.self) + commands(CardboxServerCommand.self) {
            let lines = command.configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false)
            for (line, next) in zip(lines, lines.dropFirst())
            where !line.isEmpty && !line.hasPrefix(" ") && !line.hasSuffix(":") && !next.isEmpty
                && !next.hasPrefix(" ")
            {
                Issue.record("\(command._commandName): a paragraph is wrapped by hand at '\(line.suffix(30))'")
            }
        }
        let cli = try CLI()
        defer { cli.remove() }
        let dump = try cli.run(["--experimental-dump-help"], store: false)
        func missing(_ command: [String: Any], path: String) -> [String] {
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            let undocumented = arguments.filter { ($0["abstract"] as? String ?? "").isEmpty }.map {
                "\(path) \(($0["valueName"] as? String) ?? "?")"
            }
            return undocumented
                + (command["subcommands"] as? [[String: Any]] ?? []).flatMap {
                    missing($0, path: path + " " + (($0["commandName"] as? String) ?? "?"))
                }
        }
        let serverDump = try cli.runServer(["--experimental-dump-help"])
        for dumped in [dump, serverDump] {
            let root = try #require((try dumped.json() as? [String: Any])?["command"] as? [String: Any])
            // The parser's own `help` command documents itself elsewhere.
            #expect(missing(root, path: "cardbox").filter { !$0.hasPrefix("cardbox help ") } == [])
        }
    }

    @Test("the README's tour runs as copied, line by line, in a new store (all but the interactive study)")
    func readmeTour() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let tour = try #require(readme.components(separatedBy: "## A tour").dropFirst().first)
        let block = try #require(
            tour.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let lines = block.split(separator: "\n").map { line in
            // A comment starts at " # " (none of the tour's own text holds one).
            String(line.components(separatedBy: "  # ").first ?? "").trimmingCharacters(in: .whitespaces)
        }.filter { $0.hasPrefix("cardbox ") && !$0.hasPrefix("cardbox study ") }
        #expect(lines.count > 30)
        for line in lines {
            let words = Self.shellWords(line).dropFirst().map {
                $0.replacingOccurrences(of: "/tmp/", with: cli.folder.path + "/")
            }
            // As a process: some commands (suggestion refill) run only from the program's entry point.
            let result = try cli.runProcess(Array(words))
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
    }

    /// A command line's words as a shell splits them: spaces part them, double quotes keep them whole.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                word = word ?? ""
            } else if character == " " && !quoted {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let word { words.append(word) }
        return words
    }

    @Test("records are named by their text too: a card's front, an item's or board card's title; ids first")
    func namedByText() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es", "--back", "en")
        try cli.ok("card", "add", "Spanish", "el perro", "dog")
        try cli.ok("card", "favorite", "el perro")
        let cards = try #require(try cli.json("card", "list", "Spanish", "--favorites") as? [[String: Any]])
        #expect(cards.map { $0["front"] as? String } == ["el perro"])
        try cli.ok("card", "add", "Spanish", "--cloze", "El {{c1::gato}} {{c2::duerme}}")
        let shared = try cli.run(["card", "show", "El {{c1::gato}} {{c2::duerme}}"])
        #expect(shared.status == 1 && shared.stderr.contains("matches several cards"))
        try cli.ok("list", "create", "Groceries")
        try cli.ok("item", "add", "Groceries", "Milk", "--quantity", "2")
        try cli.ok("item", "cross", "Milk")
        let items = try #require(try cli.json("list", "show", "Groceries", "--all") as? [String: Any])
        let rows = try #require(items["items"] as? [[String: Any]])
        #expect(rows.map { $0["isCrossedOut"] as? Bool } == [true])
        try cli.ok("board", "create", "Home")
        try cli.ok("board", "column", "add", "Home", "To do")
        try cli.ok("board", "column", "add", "Home", "Done")
        try cli.ok("board", "card", "add", "To do", "Paint the fence")
        try cli.ok("board", "card", "move", "Paint the fence", "--to-column", "Done")
        let board = try cli.ok("board", "show", "Home")
        #expect(board.contains("Done") && board.contains("Paint the fence"))
        // An id, or the short id printed, names its record before another's title does.
        let milk = try #require(rows.first?["id"] as? String)
        for reference in [milk, String(milk.suffix(8))] {
            try cli.ok("item", "add", "Groceries", reference)
            let shown = try #require(try cli.json("item", "cross", reference, "--undo") as? [String: Any])
            #expect(shown["title"] as? String == "Milk" && shown["isCrossedOut"] as? Bool == false)
            try cli.ok("item", "cross", "Milk")
        }
    }

    @Test("deck, list and board merge: one into another, the other deleted; never into itself")
    func merges() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es", "--back", "en")
        try cli.ok("deck", "create", "Español", "--front", "es", "--back", "en")
        try cli.ok("card", "add", "Español", "perro", "dog")
        #expect(try cli.ok("deck", "merge", "Español", "--into", "Spanish").contains("merged 1 card into Spanish"))
        let decks = try #require(try cli.json("deck", "list") as? [[String: Any]])
        #expect(decks.map { $0["name"] as? String } == ["Spanish"])
        let itself = try cli.run(["deck", "merge", "Spanish", "--into", "Spanish"])
        #expect(itself.status == 1 && itself.stderr == "error: deck: a deck cannot be merged into itself\n")
        for (kind, other) in [("list", "Shop"), ("board", "Jobs")] {
            try cli.ok(kind, "create", "Home")
            try cli.ok(kind, "create", other)
            #expect(try cli.ok(kind, "merge", other, "--into", "Home").contains("merged into"))
            #expect(try cli.run([kind, "show", other]).status == 1)
        }
    }

    @Test("a deck's life: create, add, filter, favorite, archive, restore, delete")
    func deckWorkflow() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es", "--back", "en")
        let card = try #require(
            try cli.json("card", "add", "Spanish", "hola", "hello", "--tag", "Greeting") as? [String: Any])
        #expect(card["front"] as? String == "hola" && card["frontLanguage"] as? String == "es")
        #expect(card["tags"] as? [String] == ["Greeting"])
        #expect(card["isFavorite"] as? Bool == false && card["isArchived"] as? Bool == false)
        let id = try #require(card["id"] as? String)
        try cli.ok("card", "add", "Spanish", "perro", "dog", "--tag", "noun")
        try cli.ok("card", "favorite", String(id.suffix(8)))
        let filtered = try #require(
            try cli.json("card", "list", "Spanish", "--tag", "greeting", "--favorites") as? [[String: Any]])
        #expect(filtered.map { $0["front"] as? String } == ["hola"])
        let searched = try #require(try cli.json("card", "list", "--search", "DOG") as? [[String: Any]])
        #expect(searched.map { $0["front"] as? String } == ["perro"])
        try cli.ok("card", "archive", id)
        let archived = try #require(try cli.json("card", "list", "Spanish", "--archived") as? [[String: Any]])
        #expect(archived.count == 1 && archived[0]["archivedAt"] is String)
        try cli.ok("card", "restore", id)
        let shown = try #require(try cli.json("deck", "show", "Spanish") as? [String: Any])
        let counts = try #require(shown["counts"] as? [String: Any])
        #expect(counts["currentCards"] as? Int == 2 && counts["archivedCards"] as? Int == 0)
        let events = try #require(try cli.json("events") as? [[String: Any]])
        #expect(events.contains { $0["name"] as? String == "cardFavorited" && $0["count"] as? Int == 1 })
        // Seed 001's delete all: one deck's cards, or every card; the decks stay.
        try cli.ok("deck", "create", "French", "--front", "fr", "--back", "en")
        try cli.ok("card", "add", "French", "chat", "cat")
        #expect(try cli.run(["card", "delete", id, "--all"]).status != 0)
        #expect(try cli.run(["card", "delete", "--deck", "Spanish"]).status != 0)
        #expect(try cli.ok("card", "delete", "--all", "--deck", "Spanish").contains("deleted 2 cards"))
        #expect((try cli.json("card", "list", "French") as? [Any])?.count == 1)
        #expect(try cli.ok("card", "delete", "--all").contains("deleted 1 card"))
        #expect((try cli.json("card", "list") as? [Any])?.isEmpty == true)
        #expect((try cli.json("deck", "list") as? [Any])?.count == 2)
        try cli.ok("deck", "delete", "Spanish")
        try cli.ok("deck", "delete", "French")
        #expect((try cli.json("deck", "list") as? [Any])?.isEmpty == true)
    }

    @Test("the card limit error is seed 001's, on one line, exit 1, and the store unchanged")
    func cardLimit() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "D", "--front", "es")
        try cli.ok("plan", "set", "free", "--free-limit", "1")
        try cli.ok("card", "add", "D", "uno", "one")
        let before = try CardboxStore.open(path: cli.storePath).changes().changes.rows.count
        let result = try cli.run(["card", "add", "D", "dos", "two"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: Card limit exceeded. You have 1 cards out of 1 allowed. 0 cards remaining.\n"
                + "You tried to add 1 card. 'cardbox plan set premium' lifts the limit; deleting cards makes room.\n")
        #expect(result.stdout.isEmpty)
        #expect(try CardboxStore.open(path: cli.storePath).changes().changes.rows.count == before)
        let preset = try cli.run(["deck", "create", "--preset", "spanish-basics"])
        #expect(
            preset.stderr
                == "error: Card limit exceeded. You have 1 cards out of 1 allowed. 0 cards remaining.\n"
                + "You tried to add 30 cards. 'cardbox plan set premium' lifts the limit; deleting cards makes room.\n")
        #expect((try cli.json("deck", "list") as? [Any])?.count == 1)
    }

    @Test("due cards: set a due time, archive the due ones; JSON shows empty fields as null")
    func dueAndNulls() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "D", "--front", "es")
        let card = try #require(try cli.json("card", "add", "D", "uno", "one") as? [String: Any])
        #expect(card["archivedAt"] is NSNull && card["dueAt"] is NSNull && card["imageHash"] is NSNull)
        let id = try #require(card["id"] as? String)
        try cli.ok("card", "add", "D", "dos", "two")
        // An empty list in JSON is `[]`.
        #expect(try cli.ok("card", "list", "D", "--archived", "--json") == "[]\n")
        let bad = try cli.run(["card", "edit", id, "--due", "someday"])
        #expect(bad.status == 1 && bad.stderr.contains("due: 'someday' is not a time"))
        // A day that does not exist is refused, not rolled over into the next month.
        for impossible in ["2025-02-31", "2025-04-31T09:00:00Z", "2025-13-01"] {
            let refused = try cli.run(["card", "edit", id, "--due", impossible])
            #expect(refused.status == 1 && refused.stderr.contains("due: '\(impossible)' is not a time"))
        }
        let due = try #require(try cli.json("card", "edit", id, "--due", "2020-01-01") as? [String: Any])
        #expect(due["dueAt"] as? String == "2020-01-01T00:00:00Z")
        let archived = try #require(try cli.json("deck", "archive-due", "D") as? [String: Any])
        #expect(archived["archived"] as? Int == 1)
        let current = try #require(try cli.json("card", "list", "D") as? [[String: Any]])
        #expect(current.map { $0["front"] as? String } == ["dos"])
        // One of something is said in the singular.
        let dos = try #require(current.first?["id"] as? String)
        try cli.ok("card", "edit", dos, "--due", "2020-01-01")
        #expect(try cli.ok("deck", "archive-due", "D") == "archived 1 due card\n")
        try cli.ok("list", "create", "L")
        let item = try #require(try cli.json("item", "add", "L", "milk") as? [String: Any])
        #expect(item["quantity"] is NSNull)
        // `item list` is another name for `list show`.
        #expect(try cli.ok("item", "list", "L") == cli.ok("list", "show", "L"))
        #expect(try cli.ok("item", "list", "L").contains("milk"))
    }

    @Test("preset decks are added whole on a plan that allows them")
    func presets() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("plan", "set", "premium")
        try cli.ok("deck", "create", "--preset", "spanish-basics")
        let cards = try #require(try cli.json("card", "list", "Spanish Basics") as? [[String: Any]])
        #expect(cards.count == 30)
    }

    @Test("bad input gets one clear error line and changes nothing")
    func badInput() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("list", "create", "Groceries")
        let snapshot = try cli.ok("list", "show", "Groceries", "--all", "--json")
        let cases: [([String], String)] = [
            (["item", "add", "Groceries", String(repeating: "x", count: 201)], "title: must be 1 to 200 characters"),
            (["item", "add", "Groceries", "milk", "--quantity", "3000000000"], "quantity: must be a 32-bit integer"),
            (["item", "add", "Nowhere", "milk"], "no list matches 'Nowhere'"),
            (["list", "rename", "Groceries", ""], "name: cannot be empty"),
            (["deck", "create", "X", "--front", "klingon"], "front language: 'klingon' is not an ISO 639-1"),
            (["settings", "set", "colour", "red"], "setting: unknown setting 'colour'"),
            (["list", "move", "Groceries", "--position", "5"], "position: must be 0 to 0, got 5"),
            (["item", "add", "Groceries"], "Missing expected argument '<title>'"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status != 0, "\(arguments) succeeded")
            #expect(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): more than one line")
        }
        #expect(try cli.ok("list", "show", "Groceries", "--all", "--json") == snapshot)
    }

    @Test("list show nests items in order and hides crossed-out ones unless --all")
    func listShow() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("list", "create", "Groceries")
        let milk = try #require(
            try cli.json("item", "add", "Groceries", "Milk", "--quantity", "2", "--description", "2% organic")
                as? [String: Any])
        try cli.ok("item", "add", "Groceries", "Eggs")
        try cli.ok("item", "add", "Groceries", "Bread", "--position", "0")
        try cli.ok("item", "cross", try #require(milk["id"] as? String))
        let list = try #require(try cli.json("list", "show", "Groceries") as? [String: Any])
        let items = try #require(list["items"] as? [[String: Any]])
        #expect(items.map { $0["title"] as? String } == ["Bread", "Eggs"])
        #expect(items.map { $0["orderNumber"] as? Int } == [0, 2])
        let all = try #require(
            (try cli.json("list", "show", "Groceries", "--all") as? [String: Any])?["items"] as? [[String: Any]])
        #expect(all.map { $0["title"] as? String } == ["Bread", "Milk", "Eggs"])
        let shownMilk = all[1]
        #expect(shownMilk["isCrossedOut"] as? Bool == true && shownMilk["quantity"] as? Int == 2)
        #expect(shownMilk["description"] as? String == "2% organic")
        #expect(list["name"] as? String == "Groceries" && list["orderNumber"] as? Int == 0)
        let text = try cli.ok("list", "show", "Groceries")
        #expect(text.contains("Bread") && !text.contains("Milk"))
        // No gaps in what is shown: bullets, a line for the hidden items; descriptions under their item.
        #expect(text.hasPrefix("Groceries\n- [ ] Bread"))
        #expect(text.contains("(1 crossed out, hidden; --all shows them)"))
        #expect(try cli.ok("list", "show", "Groceries", "--all").contains("\n    2% organic\n"))
        #expect(try cli.ok("list", "clear-crossed", "Groceries") == "deleted 1 crossed-out item\n")
        #expect(try cli.ok("list", "show", "Groceries", "--all").contains("Milk") == false)
    }

    @Test("a CSV whose first line names its columns imports its rows only, and says so")
    func headerRow() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let file = cli.folder.appendingPathComponent("big.csv").path
        try "front,back\nperro,dog\ngato,cat\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try cli.run(["import", file, "--deck", "Big", "--front", "es"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("its first line (front, back) names the columns; it is not a card"))
        let fronts = (try cli.json("card", "list", "Big") as? [[String: Any]])?.compactMap { $0["front"] as? String }
        #expect(fronts?.sorted() == ["gato", "perro"])
    }

    @Test("a truncated JSON file is refused as invalid JSON whatever --deck says, and nothing is created")
    func truncatedJSONImport() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es")
        let file = cli.folder.appendingPathComponent("bad.json").path
        try #"{"lists": [ {"title": "x", "#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try cli.run(["import", file, "--deck", "Spanish"])
        #expect(result.status == 1)
        #expect(
            result.stderr == "error: \(file): is not valid JSON: ends in the middle of a value at line 1, column 28\n")
        #expect((try cli.json("card", "list", "Spanish") as? [Any])?.isEmpty == true)
    }

    @Test("a file that is not a table (the README) is refused with the reason, and nothing is created")
    func notATableImport() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es")
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md").path
        let result = try cli.run(["import", readme, "--deck", "Spanish"])
        #expect(result.status == 1 && result.stderr.contains("the file is not a table of cards"), "\(result.stderr)")
        #expect((try cli.json("card", "list", "Spanish") as? [Any])?.isEmpty == true)
        // A header row naming its columns is followed: the tags go to tags.
        let csv = cli.folder.appendingPathComponent("cards.csv").path
        try "front,back,tags,notes\nperro,dog,noun,El perro ladra.\n".write(
            toFile: csv, atomically: true, encoding: .utf8)
        try cli.ok("import", csv, "--deck", "Spanish")
        let card = try #require((try cli.json("card", "list", "Spanish") as? [[String: Any]])?.first)
        #expect(card["tags"] as? [String] == ["noun"] && card["notes"] as? String == "El perro ladra.")
    }

    @Test("quiet rules: an empty back, a 5,000-character front, a deck whose two languages are the same")
    func quietRules() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Definitions", "--front", "en", "--back", "en")
        try cli.ok("card", "add", "Definitions", "serendipity", "")
        try cli.ok("card", "add", "Definitions", String(repeating: "a", count: 5_000), "long")
        let tooLong = try cli.run(["card", "add", "Definitions", String(repeating: "b", count: 10_001), "x"])
        #expect(tooLong.status == 1)
        let cards = try #require(try cli.json("card", "list", "Definitions") as? [[String: Any]])
        #expect(cards.map { ($0["back"] as? String) ?? "?" } == ["", "long"])
    }

    @Test("moves go to the end without --position, or with --position end or -1; quantities may be negative")
    func movesAndNumbers() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("list", "create", "A")
        try cli.ok("list", "create", "B")
        let first = try #require((try cli.json("item", "add", "A", "one") as? [String: Any])?["id"] as? String)
        try cli.ok("item", "add", "B", "x")
        try cli.ok("item", "add", "B", "y")
        let moved = try #require(try cli.json("item", "move", first, "--to-list", "B") as? [String: Any])
        #expect(moved["orderNumber"] as? Int == 2)
        let back = try #require(
            try cli.json("item", "move", first, "--position", "-1", "--to-list", "A") as? [String: Any])
        #expect(back["orderNumber"] as? Int == 0)
        let x = try #require((try cli.json("list", "show", "B") as? [String: Any])?["items"] as? [[String: Any]])
        let xId = try #require(x.first?["id"] as? String)
        #expect((try cli.json("item", "move", xId, "--position", "end") as? [String: Any])?["orderNumber"] as? Int == 1)
        let negative = try #require(try cli.json("item", "add", "A", "refund", "--quantity", "-3") as? [String: Any])
        #expect(negative["quantity"] as? Int == -3)
        let edited = try cli.json("item", "edit", first, "--quantity", "0") as? [String: Any]
        #expect(edited?["quantity"] as? Int == 0)
        let neither = try cli.run(["item", "move", first])
        #expect(neither.status == 64 && neither.stderr.contains("give --position, --to-list or both"))
        #expect(try cli.run(["item", "move", first, "--position", "-2"]).status == 64)
    }

    @Test("board cards name their column by title; archived cards and descriptions show in board show")
    func boardNames() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("board", "create", "Home")
        try cli.ok("board", "column", "add", "Home", "To do")
        try cli.ok("board", "column", "add", "Home", "Done")
        let paint = try #require(
            (try cli.json("board", "card", "add", "To do", "Paint", "--description", "the fence") as? [String: Any])?[
                "id"] as? String)
        let moved = try #require(try cli.json("board", "card", "move", paint, "--to-column", "Done") as? [String: Any])
        #expect(moved["orderNumber"] as? Int == 0)
        try cli.ok("board", "card", "archive", paint)
        let text = try cli.ok("board", "show", "Home", "--all")
        #expect(text.contains("Paint") && text.contains("[archived]") && text.contains("        the fence"))
        // Every id in JSON is lowercase, as everywhere else.
        func ids(_ value: Any) -> [String] {
            switch value {
            case let text as String: return UUID(uuidString: text) != nil ? [text] : []
            case let array as [Any]: return array.flatMap(ids)
            case let object as [String: Any]: return object.values.flatMap(ids)
            default: return []
            }
        }
        let shown = ids(try cli.json("board", "show", "Home", "--all"))
        #expect(shown.count >= 5 && shown.allSatisfy { $0 == $0.lowercased() })
        let empty = try cli.run(["board", "column", "add", "Home", " "])
        #expect(empty.stderr == "error: column title: cannot be empty\n")
    }

    @Test("plan set free resets the limit to seed 001's 25 and warns when there are more cards")
    func planReset() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("plan", "set", "free", "--free-limit", "40")
        #expect(try cli.ok("plan", "set", "free").contains("of 25 cards"))
        try cli.ok("plan", "set", "free", "--free-limit", "1")
        try cli.ok("deck", "create", "D", "--front", "es")
        try cli.ok("card", "add", "D", "uno", "one")
        try cli.ok("plan", "set", "premium")
        try cli.ok("card", "add", "D", "dos", "two")
        let over = try cli.run(["plan", "set", "free", "--free-limit", "1"])
        #expect(over.status == 0 && over.stderr.hasPrefix("warning: you have 2 cards, more than the free plan's 1"))
    }

    @Test("item images are checked by content, not by file name")
    func itemImages() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("list", "create", "L")
        let item = try #require((try cli.json("item", "add", "L", "receipt") as? [String: Any])?["id"] as? String)
        let png = cli.folder.appendingPathComponent("photo.txt")
        try ImageIngest.sample(width: 30, height: 20, format: .png).write(to: png)
        let fake = cli.folder.appendingPathComponent("fake.png")
        try Data("just text".utf8).write(to: fake)
        let image = try #require(try cli.json("item", "image", "add", item, png.path) as? [String: Any])
        #expect(image["mimeType"] as? String == "image/png")
        let listed = try #require(try cli.json("item", "image", "list", item) as? [[String: Any]])
        #expect(listed.first?["width"] as? Int == 30 && listed.first?["height"] as? Int == 20)
        let thumbnail = try #require(listed.first?["thumbnail"] as? [String: Any])
        #expect(thumbnail["mimeType"] as? String == "image/jpeg" && thumbnail["width"] as? Int == 30)
        let hash = try #require(image["sha256"] as? String)
        let shown = try #require(try cli.json("image", "show", String(hash.prefix(8))) as? [String: Any])
        #expect(shown["sha256"] as? String == hash && shown["byteCount"] as? Int == image["byteCount"] as? Int)
        let small = cli.folder.appendingPathComponent("small.jpg")
        try cli.ok("image", "get", hash, "-o", small.path, "--thumbnail")
        #expect(ImageFormat.detect(try Data(contentsOf: small)) == .jpeg)
        let short = try cli.run(["image", "show", "abc"])
        #expect(short.status == 1 && short.stderr.contains("is not 8 to 64 hex digits"))
        let refused = try cli.run(["item", "image", "add", item, fake.path])
        #expect(refused.status == 1 && refused.stderr == "error: image: is not a JPEG, PNG or HEIC image\n")
        let missing = try cli.run(["item", "image", "add", item, "/nonexistent/x.png"])
        #expect(missing.stderr.contains("cannot read '/nonexistent/x.png'"))
        #expect((try cli.json("item", "image", "list", item) as? [Any])?.count == 1)
    }

    @Test("board show nests columns in order, each with its cards; cards move between columns")
    func boards() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("board", "create", "Home")
        let todo = try #require(
            (try cli.json("board", "column", "add", "Home", "To do") as? [String: Any])?["id"] as? String)
        let done = try #require(
            (try cli.json("board", "column", "add", "Home", "Done") as? [String: Any])?["id"] as? String)
        let paint = try #require(
            (try cli.json("board", "card", "add", todo, "Paint", "--description", "fence") as? [String: Any])?["id"]
                as? String)
        try cli.ok("board", "card", "add", todo, "Mow")
        try cli.ok("board", "card", "move", paint, "--to-column", done, "--position", "0")
        try cli.ok("board", "column", "move", done, "--position", "0")
        let board = try #require(try cli.json("board", "show", "Home") as? [String: Any])
        #expect(board["boardTitle"] as? String == "Home")
        let columns = try #require(board["columns"] as? [[String: Any]])
        #expect(columns.map { $0["listTitle"] as? String } == ["Done", "To do"])
        #expect(columns.map { $0["orderNumber"] as? Int } == [0, 1])
        let doneCards = try #require(columns[0]["cards"] as? [[String: Any]])
        #expect(doneCards.map { $0["cardTitle"] as? String } == ["Paint"])
        #expect(doneCards[0]["cardDescription"] as? String == "fence" && doneCards[0]["orderNumber"] as? Int == 0)
        try cli.ok("board", "delete", "Home")
        #expect((try cli.json("board", "list") as? [Any])?.isEmpty == true)
    }

    @Test("suggestions: add, become visible, accept, reject, skip")
    func suggestions() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "D", "--front", "es")
        let waiting = try #require(
            (try cli.json("suggestion", "add", "D", "gato", "cat") as? [String: Any])?["id"] as? String)
        let notReady = try cli.run(["suggestion", "accept", waiting])
        #expect(notReady.status == 1 && notReady.stderr.contains("is not ready for review"))
        // Seed 000: visible once its image is made; there is no visible suggestion without one.
        #expect(try cli.run(["suggestion", "ready", waiting]).status != 0)
        let picture = cli.folder.appendingPathComponent("gato.png")
        try ImageIngest.sample(width: 30, height: 20, format: .png).write(to: picture)
        try cli.ok("suggestion", "ready", waiting, "--image", picture.path)
        let card = try #require(try cli.json("suggestion", "accept", waiting) as? [String: Any])
        #expect(card["front"] as? String == "gato")
        let other = try #require(
            (try cli.json("suggestion", "add", "D", "perro", "dog", "--image", picture.path) as? [String: Any])?["id"]
                as? String)
        try cli.ok("suggestion", "reject", other)
        let again = try cli.run(["suggestion", "add", "D", "perro", "dog"])
        #expect(again.stderr.contains("was rejected before"))
        let duplicateCard = try cli.run(["suggestion", "add", "D", "gato", "cat"])
        #expect(duplicateCard.stderr.contains("already has a card 'gato'"))
        let rejected = try #require(try cli.json("suggestion", "list", "D", "--rejected") as? [[String: Any]])
        #expect(rejected.map { $0["front"] as? String } == ["perro"])
        try cli.ok("deck", "reset-rejected", "D")
        try cli.ok("suggestion", "add", "D", "perro", "dog")
    }

    @Test("suggestion refill (async, so the built binary): fills a deck's queue from the offline dictionaries, once")
    func suggestionRefill() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "list")
        let none = try cli.runProcess(["suggestion", "refill"])
        #expect(none.status == 0 && none.stdout.contains("no deck has automatic suggestions on"))
        try cli.ok("deck", "create", "Spanish", "--front", "es", "--back", "en", "--queued-suggestions", "4")
        try cli.ok("card", "add", "Spanish", "el perro", "dog")
        let refill = try cli.runProcess(["suggestion", "refill", "Spanish", "--images", "none", "--json"])
        let report = try #require(try refill.json() as? [String: Any])
        let decks = try #require(report["decks"] as? [[String: Any]])
        let added = try #require(decks.first?["added"] as? [[String: Any]])
        #expect(added.count == 4)
        #expect(added.allSatisfy { $0["isVisible"] as? Bool == false && ($0["context"] as? String)?.isEmpty == false })
        let again = try cli.runProcess(["suggestion", "refill"])
        #expect(again.stdout.hasPrefix("Spanish: 0 added, 4 of 4 queued"))
        #expect(again.stdout.contains("images: 4 made, now visible"))
        let visible = try #require(try cli.json("suggestion", "list", "Spanish") as? [[String: Any]])
        #expect(visible.count == 4 && visible.allSatisfy { $0["imageHash"] is String })
        let unknown = try cli.runProcess(["suggestion", "refill", "--images", "crayons"])
        #expect(unknown.status == 1 && unknown.stderr.contains("'crayons' is not one of drawn, openai, none"))
        try cli.ok("deck", "create", "Mixed", "--front", "es", "--back", "de", "--queued-suggestions", "2")
        try cli.ok("card", "add", "Mixed", "el perro", "der Hund")
        let refused = try cli.runProcess(["suggestion", "refill", "Mixed"])
        #expect(refused.status == 1 && refused.stderr.contains("one side of the deck must be English"))
    }

    @Test("a command that fails where there is no store yet leaves none behind")
    func failureCreatesNothing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let result = try cli.run(["card", "show", "nope"], store: false)
        #expect(result.status == 1 && result.stderr == "error: no card matches 'nope'\n")
        #expect(!FileManager.default.fileExists(atPath: cli.folder.appendingPathComponent(".local/share/cardbox").path))
        let made = try cli.run(["deck", "list"], store: false)
        #expect(made.status == 0)
        #expect(
            FileManager.default.fileExists(
                atPath: cli.folder.appendingPathComponent(".local/share/cardbox/cardbox.sqlite").path))
    }

    @Test("fsrs replay reads JSON Lines and agrees with py-fsrs's reference case")
    func fsrsReplay() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CardboxSchedulingTests/Fixtures/three-steps.json")
        let reference = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
        let reviews = try #require(reference["input"] as? [[String: Any]])
        let expected = try #require(reference["expected"] as? [[String: Any]])
        let input = try reviews.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let result = try cli.run(
            [
                "fsrs", "replay", "--desired-retention", "0.8", "--learning-steps", "1m,10m,1h", "--relearning-steps",
                "10m,1h",
            ], store: false, input: input.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == expected.count)
        for (line, want) in zip(lines, expected) {
            let got = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(got["due"] as? String == want["due"] as? String)
            #expect(got["state"] as? String == want["state"] as? String)
            let stability = try #require(got["stability"] as? Double)
            let wantStability = try #require(want["stability"] as? Double)
            #expect(abs(stability - wantStability) <= 1e-6 * wantStability)
        }
        let bad = try cli.run(["fsrs", "replay", "--parameters", "1,2,3"], store: false, input: "")
        #expect(bad.status == 1 && bad.stderr == "error: FSRS-6 takes 21 parameters (w0…w20), got 3\n")
        let badLine = try cli.run(
            ["fsrs", "replay"], store: false, input: "{\"card\":\"c\",\"rating\":9,\"time\":\"2025-01-01T00:00:00Z\"}\n"
        )
        #expect(badLine.stderr.hasPrefix("error: line 1: rating must be 1 (again)"))
    }

    @Test("studying: --next --json, card answer, --undo, and a scripted interactive session")
    func study() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "D", "--front", "es")
        try cli.ok("deck", "edit", "D", "--fuzz", "false", "--new-per-day", "2")
        for word in ["uno", "dos", "tres"] { try cli.ok("card", "add", "D", word, "-") }
        let next = try #require(try cli.json("study", "D", "--next") as? [String: Any])
        let card = try #require(next["card"] as? [String: Any])
        #expect(card["front"] as? String == "uno" && next["queue"] as? String == "new")
        #expect((next["remaining"] as? [String: Int])?["new"] == 2)
        #expect((next["nextDue"] as? [String: String])?.count == 4)
        let id = try #require(card["id"] as? String)
        let answered = try #require(try cli.json("card", "answer", id, "4") as? [String: Any])
        #expect((answered["card"] as? [String: Any])?["state"] as? String == "review")
        #expect((answered["log"] as? [String: Any])?["rating"] as? Int == 4)
        let undone = try #require(try cli.json("study", "D", "--undo") as? [String: Any])
        #expect(undone["state"] as? String == "new" && undone["reps"] as? Int == 0)
        let bad = try cli.run(["card", "answer", id, "5"])
        #expect(bad.status == 64 && bad.stderr.contains("'5'"))
        let named = try #require(try cli.json("card", "answer", id, "Good") as? [String: Any])
        #expect((named["log"] as? [String: Any])?["rating"] as? Int == 3)
        _ = try cli.json("study", "D", "--undo")
        // Reveal and rate Good, reveal and rate Easy, undo, then quit.
        let session = try cli.run(["study", "D"], input: " 3 4uq")
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("uno") && session.stdout.contains("1 Again (1m)   2 Hard (6m)   3 Good (10m)"))
        #expect(session.stdout.contains("(undid the answer to dos)"))
        #expect(session.stdout.hasSuffix("studied 1 card\n"))
        let reopened = try CardboxStore.open(path: cli.storePath)
        let log = try reopened.reviewLog(in: try reopened.resolve("D"))
        #expect(log.map(\.rating) == [3])
        let stats = try #require(try cli.json("stats", "D") as? [String: Any])
        #expect((stats["reviewsPerDay"] as? [[String: Any]])?.last?["count"] as? Int == 1)
        #expect((stats["cardCounts"] as? [String: Int])?["learning"] == 1)
        let chart = try cli.ok("stats", "D")
        #expect(chart.contains("Reviews per day, last 30 days (1 in all)") && chart.contains("█"))
    }

    @Test("fsrs optimize fits reviews from a file or the store, and refuses too few")
    func fsrsOptimize() throws {
        let cli = try CLI()
        defer { cli.remove() }
        // 600 cards, each reviewed on day 0 and again after 1 to 30 days: remembered when the gap is short.
        var lines: [String] = []
        for card in 0..<600 {
            let gap = card % 30 + 1
            let later = Date(timeIntervalSince1970: 1_735_722_000 + Double(gap) * 86_400)
            let rating = card % 7 < (gap < 10 ? 6 : 3) ? 3 : 1
            lines.append(#"{"card":"c\#(card)","rating":3,"time":"2025-01-01T09:00:00Z"}"#)
            lines.append(
                #"{"card":"c\#(card)","rating":\#(rating),"time":"\#(ISO8601DateFormatter().string(from: later))"}"#)
        }
        let file = cli.folder.appendingPathComponent("reviews.jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let fitted = try #require(try cli.json("fsrs", "optimize", "--input", file.path) as? [String: Any])
        let before = try #require(fitted["before"] as? [String: Any])
        let after = try #require(fitted["after"] as? [String: Any])
        #expect(before["reviews"] as? Int == 600 && (fitted["parameters"] as? [Double])?.count == 21)
        #expect(try #require(after["logLoss"] as? Double) < (try #require(before["logLoss"] as? Double)))
        #expect(fitted["stored"] as? Bool == false)
        try cli.ok("deck", "create", "D", "--front", "es")
        let tooFew = try cli.run(["fsrs", "optimize", "D"])
        #expect(tooFew.status == 1 && tooFew.stderr.contains("not enough reviews to optimize: 0 usable reviews"))
        try "not json\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try cli.run(["fsrs", "optimize", "--input", file.path], store: false)
        #expect(bad.stderr.contains("line 1 is not"))
        // A large file is read in parts at once: a bad line far in is still named by its own number,
        // and blank lines anywhere are passed over.
        var many = Array(repeating: lines, count: 4).flatMap { $0 }
        many[100] = "   "
        many[4_320] = "not json"
        try many.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let far = try cli.run(["fsrs", "optimize", "--input", file.path], store: false)
        #expect(far.status == 1 && far.stderr.contains("line 4321 is not"), "\(far.stderr)")
    }

    @Test("fsrs simulate and optimal-retention: fsrs-rs's default deck, or a deck's own cards and limits")
    func fsrsSimulate() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let plain = try #require(
            try cli.json(
                "fsrs", "simulate", "--days", "30", "--cards", "300", "--new-per-day", "40", "--minutes-per-day", "600")
                as? [String: Any])
        let totals = try #require(plain["totals"] as? [String: Any])
        let perDay = try #require(plain["perDay"] as? [String: [Double]])
        #expect(plain["desiredRetention"] as? Double == 0.9 && perDay["reviews"]?.count == 30)
        #expect(totals["newCards"] as? Int == 300 && perDay["newCards"]?.prefix(7).allSatisfy { $0 == 40 } == true)
        #expect(totals["reviews"] as? Int == Int(perDay["reviews"]!.reduce(0, +)))
        // A deck: its three new cards (one answered), its limit of two new cards a day.
        try cli.ok("deck", "create", "D", "--front", "es")
        try cli.ok("deck", "edit", "D", "--new-per-day", "2", "--desired-retention", "0.85")
        for word in ["uno", "dos", "tres"] { try cli.ok("card", "add", "D", word, "-") }
        let next = try #require(try cli.json("study", "D", "--next") as? [String: Any])
        let id = try #require((next["card"] as? [String: Any])?["id"] as? String)
        _ = try cli.json("card", "answer", id, "3")
        let deck = try #require(try cli.json("fsrs", "simulate", "D", "--days", "10") as? [String: Any])
        let deckDays = try #require(deck["perDay"] as? [String: [Double]])
        #expect(deck["deck"] as? String == "D" && deck["desiredRetention"] as? Double == 0.85)
        #expect(deckDays["newCards"]?.prefix(2) == [2, 0], "two new cards left, two a day")
        let text = try cli.ok("fsrs", "simulate", "D", "--days", "21", "--desired-retention", "0.8")
        #expect(text.hasPrefix("D, 21 days at desired retention 0.80:") && text.contains("minutes a day"))
        // Several seeds in one run: each run as its own seed gives it, and their mean.
        func simulated(_ seeds: [String], json: Bool = true) throws -> (text: String, report: [String: Any]) {
            let result = try cli.run(
                ["fsrs", "simulate", "--cards", "200", "--days", "60"] + seeds.flatMap { ["--seed", $0] }
                    + (json ? ["--json"] : []))
            #expect(result.status == 0, "\(result.stderr)")
            return (result.stdout, json ? try #require(try result.json() as? [String: Any]) : [:])
        }
        func reviews(_ totals: Any?) -> Int? { (totals as? [String: Any])?["reviews"] as? Int }
        let runs = try simulated(["7", "8"]).report
        let each = try #require(runs["runs"] as? [[String: Any]])
        #expect(each.map { $0["seed"] as? Int } == [7, 8])
        for (index, seed) in ["7", "8"].enumerated() {
            #expect(reviews(try simulated([seed]).report["totals"]) == reviews(each[index]["totals"]))
        }
        let total = each.compactMap { reviews($0["totals"]) }.reduce(0, +)
        #expect(reviews(runs["mean"]) == Int((Double(total) / 2).rounded()))
        let table = try simulated(["7", "8"], json: false).text
        #expect(table.contains("2 runs") && table.contains("mean"))
        let best = try #require(
            try cli.json("fsrs", "optimal-retention", "--cards", "100", "--days", "400") as? [String: Any])
        #expect((0.7...0.95).contains(try #require(best["desiredRetention"] as? Double)))
        for (arguments, message) in [
            (["fsrs", "simulate", "--days", "0"], "--days must be 1 to 3650, got 0"),
            (["fsrs", "simulate", "--desired-retention", "0.5"], "--desired-retention must be 0.7 to 0.99, got 0.5"),
            (["fsrs", "simulate", "Nope"], "no deck matches 'Nope'"),
            (["fsrs", "optimal-retention", "--cards", "0"], "--cards must be 1 or more, got 0"),
        ] {
            let refused = try cli.run(arguments)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }

    @Test("export listall to a file, import it elsewhere; the format is detected; bad files change nothing")
    func listAllExchange() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("list", "create", "Groceries")
        try cli.ok("item", "add", "Groceries", "Milk", "--quantity", "2")
        let file = cli.folder.appendingPathComponent("lists.json").path
        #expect(try cli.ok("export", "listall", "-o", file) == "exported 1 list to \(file)\n")
        let other = cli.folder.appendingPathComponent("other.sqlite").path
        let imported = try cli.run(["--store", other, "import", file, "--json"], store: false)
        #expect(imported.status == 0, "\(imported.stderr)")
        let report = try #require(try imported.json() as? [String: Any])
        #expect((report["created"] as? [String: Int]) == ["list": 1, "item": 1])
        let again = try cli.run(["--store", other, "import", file], store: false)
        #expect(again.stdout == "skipped: 1 item, 1 list\n")
        try "{\"version\":\"1.0\",\"lists\":[{\"name\":\"x\"}]}".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try cli.run(["--store", other, "import", file], store: false)
        #expect(bad.status == 1 && bad.stderr == "error: \(file): lists[0].id: is required\n")
        try "hello".write(toFile: file, atomically: true, encoding: .utf8)
        let unknown = try cli.run(["--store", other, "import", file], store: false)
        #expect(unknown.stderr.contains("cannot tell its format"))
        let lists = try cli.run(["--store", other, "list", "list", "--json"], store: false)
        #expect((try lists.json() as? [Any])?.count == 1)
    }

    @Test("cards in and out as TSV/CSV; the plan's limit applies to the whole file")
    func delimitedExchange() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es")
        let file = cli.folder.appendingPathComponent("words.txt").path
        try "hola\thello\nperro\tdog\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try cli.ok("import", file, "--deck", "Spanish") == "created: 2 cards\n")
        #expect(try cli.ok("import", file, "--deck", "Spanish") == "skipped: 2 cards\n")
        let csv = try cli.ok("export", "csv", "--deck", "Spanish")
        #expect(
            csv
                == "#separator:comma\n#html:false\n#tags column:3\n#columns:Front,Back,Tags,Notes\nhola,hello,,\nperro,dog,,\n"
        )
        // Notes travel in the fourth column and come back; archived cards are left out, and said.
        let hola = try #require((try cli.json("card", "list", "Spanish") as? [[String: Any]])?.first?["id"] as? String)
        try cli.ok("card", "edit", hola, "--notes", "¡Hola, amigo!")
        let perro = try #require((try cli.json("card", "list", "Spanish") as? [[String: Any]])?.last?["id"] as? String)
        try cli.ok("card", "archive", perro)
        let tsvFile = cli.folder.appendingPathComponent("out.tsv").path
        #expect(
            try cli.ok("export", "tsv", "--deck", "Spanish", "-o", tsvFile)
                == "exported 1 card (1 archived left out) to \(tsvFile)\n")
        let other = cli.folder.appendingPathComponent("other.sqlite").path
        try cli.ok("--store", other, "deck", "create", "Copy", "--front", "es")
        #expect(
            try cli.run(["--store", other, "import", tsvFile, "--deck", "Copy"], store: false).stdout
                == "created: 1 card\n")
        let copied = try cli.run(["--store", other, "card", "list", "Copy", "--json"], store: false)
        let notes = (try copied.json() as? [[String: Any]])?.map { $0["notes"] as? String }
        #expect(notes == ["¡Hola, amigo!"])
        let many = (0..<30).map { "w\($0)\tx" }.joined(separator: "\n")
        try many.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try cli.run(["import", file, "--deck", "Spanish"])
        #expect(
            refused.stderr
                == "error: Card limit exceeded. You have 2 cards out of 25 allowed. 23 cards remaining.\n"
                + "You tried to add 30 cards. 'cardbox plan set premium' lifts the limit; deleting cards makes room.\n")
        let noDeck = try cli.run(["import", file])
        #expect(noDeck.stderr.contains("line 1: no deck: give --deck"))
        #expect((try cli.json("card", "list", "Spanish") as? [Any])?.count == 1)
    }

    @Test("a Trello export becomes a board; archived cards show with --all")
    func trello() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let file = cli.folder.appendingPathComponent("trello.json").path
        try """
        {"name": "Home", "lists": [{"id": "l1", "name": "To do", "pos": 1}],
         "cards": [{"name": "Paint", "idList": "l1", "pos": 2}, {"name": "Mow", "idList": "l1", "pos": 1, "closed": true}]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try cli.ok("import", file) == "created: 1 board, 2 cards, 1 column\n")
        let board = try #require(try cli.json("board", "show", "Home") as? [String: Any])
        let cards = try #require((board["columns"] as? [[String: Any]])?.first?["cards"] as? [[String: Any]])
        #expect(cards.map { $0["cardTitle"] as? String } == ["Paint"])
        let all = try #require(try cli.json("board", "show", "Home", "--all") as? [String: Any])
        let allCards = try #require((all["columns"] as? [[String: Any]])?.first?["cards"] as? [[String: Any]])
        #expect(allCards.map { $0["isArchived"] as? Bool } == [true, false])
    }

    @Test("a backup restores into a new store exactly, and never over existing data")
    func backup() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok("deck", "create", "Spanish", "--front", "es")
        try cli.ok("card", "add", "Spanish", "hola", "hello", "--tag", "greeting")
        try cli.ok("list", "create", "Groceries")
        let file = cli.folder.appendingPathComponent("backup.json").path
        try cli.ok("export", "backup", "-o", file)
        let copy = cli.folder.appendingPathComponent("copy.sqlite").path
        let restored = try cli.run(["--store", copy, "import", file], store: false)
        #expect(restored.status == 0, "\(restored.stderr)")
        let cards = try cli.run(["--store", copy, "card", "list", "Spanish", "--json"], store: false)
        #expect(cards.stdout == (try cli.ok("card", "list", "Spanish", "--json")))
        let again = try cli.run(["import", file])
        #expect(again.status == 1 && again.stderr.contains("restore into a new store"))
    }

    @Test("an Anki package imports whole, its cloze card too; a new deck needs its front language")
    func apkg() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CardboxExchangeTests/Fixtures/spanish.apkg").path
        let refused = try cli.run(["import", fixture])
        // The command line's refusal names its flag.
        #expect(
            refused.status == 1
                && refused.stderr.contains("does not exist (give its front language with --front, e.g. --front es,"))
        #expect(
            try cli.ok("import", fixture, "--front", "es")
                == "created: 6 cards, 2 decks, 3 reviews\n")
    }

    @Test("the store is found through --store, CARDBOX_STORE, then XDG_DATA_HOME")
    func storeLocation() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let xdg = cli.folder.appendingPathComponent("xdg")
        try cli.run(["list", "create", "FromXDG"], store: false, environment: ["XDG_DATA_HOME": xdg.path])
        #expect(FileManager.default.fileExists(atPath: xdg.appendingPathComponent("cardbox/cardbox.sqlite").path))
        let env = cli.folder.appendingPathComponent("env.sqlite").path
        try cli.run(["list", "create", "FromEnv"], store: false, environment: ["CARDBOX_STORE": env])
        let fromEnv = try cli.run(["list", "list"], store: false, environment: ["CARDBOX_STORE": env])
        #expect(fromEnv.stdout.contains("FromEnv") && !fromEnv.stdout.contains("FromXDG"))
        try cli.run(["list", "create", "FromHome"], store: false)
        #expect(
            FileManager.default.fileExists(
                atPath: cli.folder.appendingPathComponent(".local/share/cardbox/cardbox.sqlite").path))
        let flag = try cli.run(
            ["--store", env, "list", "list"], store: false, environment: ["CARDBOX_STORE": "/nonexistent/x"])
        #expect(flag.stdout.contains("FromEnv"))
    }
}

@Suite("Progress bar")
struct ProgressBarTests {
    @Test("the bar shows the share done and the counts")
    func render() {
        #expect(
            ProgressBar.render(label: "cards", done: 5_000, total: 10_000, width: 10)
                == "[#####·····]  50%  5,000/10,000 cards")
        #expect(ProgressBar.render(label: "cards", done: 0, total: 0, width: 4) == "[####] 100%  0/0 cards")
    }
}

@Suite("History")
struct HistoryCommandTests {
    @Test("history lists recent changes newest first: when, which device, which records and fields")
    func history() throws {
        let cli = try CLI()
        defer { cli.remove() }
        #expect(try cli.ok("history") == "no changes yet\n")
        try cli.ok("deck", "create", "Spanish", "--front", "es")
        try cli.ok("card", "add", "Spanish", "hola", "hello", "--tag", "greeting")
        let card = try #require((try cli.json("card", "list", "Spanish") as? [[String: Any]])?.first?["id"] as? String)
        try cli.ok("card", "edit", card, "--back", "hi")
        let entries = try #require(try cli.json("history", "--limit", "2") as? [[String: Any]])
        #expect(entries.count == 2)
        let edit = try #require(entries.first?["changes"] as? [[String: Any]])
        #expect(edit.first?["operation"] as? String == "update" && edit.first?["entity"] as? String == "card")
        #expect(Set(edit.first?["fields"] as? [String] ?? []) == ["back", "modifiedAt"])
        #expect(entries.allSatisfy { $0["isThisDevice"] as? Bool == true })
        let added = try #require(entries.last?["counts"] as? [String: Int])
        #expect(added == ["card insert": 1, "tag insert": 1, "cardTag insert": 1])
        let text = try cli.ok("history", "--limit", "1")
        #expect(
            text.contains("this device  1 change\n") && text.contains("update card \(card.suffix(8)) back, modifiedAt"))
        let bad = try cli.run(["history", "--limit", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--limit must be 1 to 1000"))
    }
}

@Suite("Store file")
struct StoreFileTests {
    @Test("the cardbox process leaves no write-ahead log behind: it is folded back into the store file")
    func walFolded() throws {
        let cli = try CLI()
        defer { cli.remove() }
        // The first command on a new store is the one that used to leave its log behind.
        #expect(try cli.runProcess(["deck", "create", "Spanish", "--front", "es"]).status == 0)
        let log = cli.storePath + "-wal"
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        #expect(size == 0)
        #expect(try cli.ok("deck", "list").contains("Spanish"))
    }

    @Test("a command that only reads leaves the store file exactly as it was")
    func readsWriteNothing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        #expect(try cli.runProcess(["deck", "create", "Spanish", "--front", "es"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.storePath))
        for command in [["plan", "show"], ["deck", "list"], ["card", "list", "Spanish"]] {
            #expect(try cli.runProcess(command).status == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.storePath)) == before)
    }

    @Test("a store made by an earlier version says it is being upgraded, once, and keeps its data")
    func upgradeSaid() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../CardboxStoreTests/Fixtures/store-v10.sqlite")
        try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: cli.storePath))
        let first = try cli.run(["deck", "list"])
        #expect(first.status == 0)
        let lines = first.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(first.stderr)")
        #expect(
            lines.first
                == "upgrading the store at \(cli.storePath) to this version's layout (once; a large store takes seconds)…"
        )
        #expect(lines.last?.hasPrefix("upgraded the store in ") == true && lines.last?.hasSuffix(" s") == true)
        #expect(!first.stdout.isEmpty)
        let second = try cli.run(["deck", "list"])
        #expect(second.stderr == "" && second.stdout == first.stdout)
    }
}
