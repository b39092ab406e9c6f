import ArgumentParser
import CardboxCore
import CardboxScheduling
import CardboxStore
import CardboxSync
import Foundation

/// Measures the store's figures that the foundation issue sets, beside their physical reference
/// (the `sqlite3` shell doing the same inserts) and Anki's `add_notes`.
@main
struct CardboxBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardbox-bench",
        abstract: "Benchmark the store: batch insert, listing, moving; beside sqlite3 and Anki.",
        discussion: """
            Run it through scripts/bench.sh, which builds it in release mode and installs the peers.

            Example:
              .build/release/cardbox-bench --runs 5 --anki-script scripts/anki_bench.py
            """)

    @Option(help: "Repetitions of each timed step (the median is reported).") var runs = 5
    @Option(help: "Cards in the batch insert.") var batch = 10_000
    @Option(help: "Cards in the deck that is listed.") var deckSize = 100_000
    @Option(help: "Items in the list whose items are moved.") var listSize = 10_000
    @Option(help: "Folder for the stores (default: a new temporary folder).") var work: String?
    @Option(help: "The Anki peer script; left out, Anki is not measured.") var ankiScript: String?
    @Option(help: "The sqlite3 shell.") var sqlite3 = "/usr/bin/sqlite3"
    @Option(help: "Run only this step (insert, moves, scheduler, study, apply or fit), for profiling.")
    var only: String?
    @Option(help: "With --only fit: the reviews (fsrs replay's JSON Lines) the optimizer fits.") var reviews: String?
    @Option(help: "The Anki study peer script; left out, Anki's study figures are not measured.")
    var ankiStudyScript: String?

    func run() throws {
        let folder = URL(fileURLWithPath: work ?? NSTemporaryDirectory()).appendingPathComponent(
            "cardbox-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bench = Measurements(folder: folder, runs: runs, sqlite3: sqlite3)

        if only == "study" {
            let study = try bench.study(answers: 1_000, collection: deckSize)
            print("answer 1,000 cards: \(Report.ms(study.answer)); first 1,000 of the queue: \(Report.ms(study.queue))")
            return
        }
        if only == "web-answer" {
            print(
                Report.webAnswer(try bench.webAnswers(1_000)).map { $0.joined(separator: ": ") }.joined(separator: "\n")
            )
            return
        }
        if only == "moves" {
            let moves = try bench.moves(listSize: listSize)
            let figures = "median \(Report.ms(moves.median)), p95 \(Report.ms(moves.p95))"
            print("move an item in a \(listSize)-item list: \(figures)")
            return
        }
        if only == "apply" {
            let wire = try bench.applyChanges(cards: batch)
            print("the change set of \(batch) cards with 2 tags each (\(wire.bytes / 1_000) kB):")
            print("  read from the store: \(Report.ms(wire.read))")
            print("  written as JSON: \(Report.ms(wire.encode))")
            print("  parsed from JSON: \(Report.ms(wire.parse))")
            print("  checked and applied to an empty store: \(Report.ms(wire.apply))")
            return
        }
        if only == "fit" {
            guard let reviews else { throw ValidationError("--only fit needs --reviews FILE") }
            let seconds = try Self.fitSeconds(reviews, runs: runs)
            print(String(format: "{\"fitSeconds\": %.4f}", seconds))
            return
        }
        if only == "scheduler" {
            let rate = try bench.schedulerThroughput()
            print(String(format: "FSRS-6 next states: %.2f million per second", rate / 1e6))
            return
        }
        let insert = try bench.batchInsert(cards: batch)
        if only == "insert" {
            print("insert \(batch) cards: \(Report.ms(insert.median))")
            return
        }
        let reference = try bench.sqliteReference(from: insert.lastStore)
        let listing = try bench.listing(deckSize: deckSize)
        let moves = try bench.moves(listSize: listSize)
        let anki = try ankiScript.map { try bench.anki(script: $0, notes: batch) }
        let schedulerRate = try bench.schedulerThroughput()
        let study = try bench.study(answers: 1_000, collection: deckSize)
        let webAnswer = try bench.webAnswers(1_000)
        let ankiStudy = try ankiStudyScript.map { try bench.ankiStudy(script: $0, answers: 1_000, cards: deckSize) }

        print("")
        print("Cardbox store benchmark (median of \(runs) runs; release build; WAL; history recorded)")
        print(
            Report.table(
                ([
                    ["insert \(batch) cards, one batch", Report.ms(insert.median), ""],
                    [
                        "  sqlite3 shell, same rows (cards + history), one transaction",
                        Report.ms(reference.sameRows), Report.ratio(insert.median, reference.sameRows),
                    ],
                    [
                        "  sqlite3 shell, card rows only, one transaction", Report.ms(reference.cardsOnly),
                        Report.ratio(insert.median, reference.cardsOnly),
                    ],
                    anki.map {
                        [
                            "  Anki \($0.version) add_notes (call only)", Report.ms($0.addOnly),
                            Report.ratio(insert.median, $0.addOnly),
                        ]
                    } ?? ["  Anki: not measured (no --anki-script)", "", ""],
                    anki.map {
                        [
                            "  Anki \($0.version) new_note + add_notes", Report.ms($0.buildAndAdd),
                            Report.ratio(insert.median, $0.buildAndAdd),
                        ]
                    } ?? ["", "", ""],
                    ["list first 1,000 cards of a \(deckSize)-card deck", Report.ms(listing.firstPage), ""],
                    ["list 1,000 cards from the middle of that deck", Report.ms(listing.middlePage), ""],
                    ["move an item in a \(listSize)-item list (median)", Report.ms(moves.median), ""],
                    ["move an item in a \(listSize)-item list (95th percentile)", Report.ms(moves.p95), ""],
                    [
                        "FSRS-6 next-state computations per second",
                        String(format: "%.2f M", schedulerRate / 1e6), "(fsrs-rs ≈ 0.95 M)",
                    ],
                    ["answer 1,000 cards one by one (queue, answer, commit)", Report.ms(study.answer), ""],
                    ankiStudy.map {
                        [
                            "  Anki \($0.version) getCard + answerCard, FSRS on", Report.ms($0.answer),
                            Report.ratio(study.answer, $0.answer),
                        ]
                    } ?? ["", "", ""],
                ] + Report.webAnswer(webAnswer).map { $0 + [""] }
                    + [
                        ["first 1,000 of the due queue, \(deckSize)-card collection", Report.ms(study.queue), ""],
                        ankiStudy.map {
                            [
                                "  Anki \($0.version) get_queued_cards(1,000)", Report.ms($0.queue),
                                Report.ratio(study.queue, $0.queue),
                            ]
                        } ?? ["", "", ""],
                    ]).filter { !$0[0].isEmpty }))
        print("(ratio = Cardbox time / peer time; below 1 is faster than the peer)")
    }
}

struct Measurements {
    let folder: URL
    let runs: Int
    let sqlite3: String

    /// Times `body` `runs` times, showing progress, and returns every duration in seconds.
    func repeatTimed(_ label: String, _ body: (Int) throws -> Double) rethrows -> [Double] {
        var durations: [Double] = []
        for run in 0..<runs {
            Progress.show("\(label): run \(run + 1)/\(runs)")
            durations.append(try body(run))
        }
        Progress.done("\(label): median \(Report.ms(durations.median))")
        return durations
    }

    func freshStore(_ name: String) throws -> (CardboxStore, String) {
        let path = folder.appendingPathComponent("\(name).sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let store = try CardboxStore.open(path: path)
        _ = try store.setPlan(.premium)
        return (store, path)
    }

    /// What a first sync does with another replica's change set, step by step: a store of `count`
    /// cards with two tags each reads everything it has and writes it as JSON; the JSON is parsed
    /// and checked; an empty store of the same account applies it.
    func applyChanges(cards count: Int) throws -> (
        read: Double, encode: Double, parse: Double, apply: Double, bytes: Int
    ) {
        let (source, _) = try freshStore("apply-source")
        let deck = try source.createDeck(name: "Bench", frontLanguage: "es", backLanguage: "en")
        _ = try source.addCards(
            to: deck.id,
            (0..<count).map {
                CardDraft(front: "word \($0)", back: "meaning \($0)", tags: ["t\($0 % 50)", "g\($0 % 7)"])
            })
        var changes = ChangeSet(accountId: source.accountId, replicaId: source.replicaId)
        let read = try repeatTimed("read \(count) cards' changes") { _ in
            try Clock.seconds { changes = try source.changes().changes }
        }.median
        var text = ""
        let encode = repeatTimed("write them as JSON") { _ in Clock.seconds { text = changes.jsonText } }.median
        let parse = try repeatTimed("parse the JSON") { _ in try Clock.seconds { _ = try ChangeSet.parse(text) } }
            .median
        let apply = try repeatTimed("apply \(count) cards") { run in
            let path = folder.appendingPathComponent("apply-\(run).sqlite").path
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let target = try CardboxStore.open(path: path, account: source.accountId)
            return try Clock.seconds { _ = try target.apply(changes) }
        }.median
        return (read, encode, parse, apply, text.utf8.count)
    }

    static func drafts(_ count: Int) -> [CardDraft] {
        (0..<count).map { CardDraft(front: "word \($0)", back: "meaning \($0)") }
    }

    /// The store's part of a study answer in the web app, as the server's copy of an account does
    /// it: the answer, checked against its deck in its transaction, then the read of what it
    /// changed, to push. Medians over the runs of the time per answer of each, and the bytes the
    /// process wrote per answer (`wchar`: the write-ahead log and its checkpoints; Linux only).
    /// The same work on a store in memory gives the engine's part alone, with no file at all: what
    /// a copy held in memory and written behind would still spend at every answer.
    func webAnswers(_ count: Int) throws -> WebAnswerFigures {
        var figures: [WebAnswerFigures] = []
        for run in 0..<runs {
            Progress.show("the store's part of \(count) web answers: run \(run + 1)/\(runs)")
            let (onFile, _) = try freshStore("web-answer-\(run)")
            var figure = try Self.answerTimes(on: onFile, count)
            let inMemory = try CardboxStore.inMemory()
            _ = try inMemory.setPlan(.premium)
            let memory = try Self.answerTimes(on: inMemory, count)
            figure.inMemory = (memory.answer, memory.changes)
            figures.append(figure)
        }
        let median = WebAnswerFigures(
            answer: figures.map(\.answer).median, changes: figures.map(\.changes).median,
            bytes: figures.contains { $0.bytes == nil } ? nil : figures.compactMap(\.bytes).median,
            inMemory: (figures.compactMap(\.inMemory?.answer).median, figures.compactMap(\.inMemory?.changes).median))
        Progress.done("the store's part of a web answer: \(Report.us(median.answer + median.changes)) each")
        return median
    }

    /// Answers `count` times on a new deck of 100 cards, each answer followed by the read of what
    /// it changed: the mean time of each, and the bytes written per answer.
    static func answerTimes(on store: CardboxStore, _ count: Int) throws -> WebAnswerFigures {
        let deck = try store.createDeck(name: "Study", frontLanguage: "es", backLanguage: "en")
        let cards = try store.addCards(to: deck.id, drafts(100))
        var sent = try store.changes().cursor
        var answering = 0.0
        var reading = 0.0
        let written = bytesWritten()
        for index in 0..<count {
            answering += try Clock.seconds {
                _ = try store.answer(cards[index % cards.count].id, inDeck: deck.id, rating: 3)
            }
            reading += try Clock.seconds { sent = try store.changes(since: sent).cursor }
        }
        let bytes = bytesWritten().flatMap { end in written.map { Double(end - $0) / Double(count) } }
        return WebAnswerFigures(answer: answering / Double(count), changes: reading / Double(count), bytes: bytes)
    }

    /// Bytes this process has passed to `write` and its kin so far (`/proc/self/io`'s `wchar`), where
    /// the system says (Linux).
    static func bytesWritten() -> Int? {
        guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
            let line = io.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") })
        else { return nil }
        return Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
    }

    func batchInsert(cards count: Int) throws -> (median: Double, lastStore: String) {
        let drafts = Self.drafts(count)
        var lastStore = ""
        let durations = try repeatTimed("insert \(count) cards") { run in
            let (store, path) = try freshStore("insert-\(run)")
            let deck = try store.createDeck(name: "Bench", frontLanguage: "es", backLanguage: "en")
            lastStore = path
            return try Clock.seconds { _ = try store.addCards(to: deck.id, drafts) }
        }
        return (durations.median, lastStore)
    }

    /// The physical reference: the rows the batch wrote, inserted by the sqlite3 shell into a copy of
    /// the schema in one transaction (foreign keys on, WAL, as the store runs).
    func sqliteReference(from store: String) throws -> (sameRows: Double, cardsOnly: Double) {
        let schema = try shell(store, ".schema").split(separator: "\n")
            .filter { !$0.contains("sqlite_sequence") }.joined(separator: "\n")
        let setup = try shell(
            store,
            ".mode insert account\nSELECT * FROM account;\n.mode insert deck\nSELECT * FROM deck;\n"
                + ".mode insert replica\nSELECT * FROM replica;")
        let cards = try shell(store, ".mode insert card\nSELECT * FROM card;")
        // The batch's one history entry (the cards carry their own clocks).
        let history = try shell(
            store, ".mode insert changeBatch\nSELECT * FROM changeBatch ORDER BY id DESC LIMIT 1;")
        func time(_ label: String, _ inserts: String) throws -> Double {
            let script = folder.appendingPathComponent("inserts.sql")
            // The store's own connection settings: foreign keys on, a 16 MiB page cache.
            try ("PRAGMA foreign_keys = ON;\nPRAGMA cache_size = -16384;\nBEGIN;\n" + inserts + "\nCOMMIT;\n").write(
                to: script, atomically: true, encoding: .utf8)
            return try repeatTimed(label) { run in
                let reference = folder.appendingPathComponent("reference-\(run).sqlite").path
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: reference + suffix) }
                _ = try shell(reference, "PRAGMA journal_mode = WAL;\n" + schema + "\n" + setup)
                return try Clock.seconds { _ = try shell(reference, input: script) }
            }.median
        }
        return (try time("sqlite3: same rows", cards + "\n" + history), try time("sqlite3: card rows only", cards))
    }

    func listing(deckSize: Int) throws -> (firstPage: Double, middlePage: Double) {
        let (store, _) = try freshStore("listing")
        let deck = try store.createDeck(name: "Big", frontLanguage: "es", backLanguage: "en")
        let chunk = 10_000
        for start in stride(from: 0, to: deckSize, by: chunk) {
            Progress.show("building a \(deckSize)-card deck: \(start)/\(deckSize)")
            _ = try store.addCards(to: deck.id, Self.drafts(min(chunk, deckSize - start)))
        }
        Progress.done("built a \(deckSize)-card deck")
        let first = try repeatTimed("list first 1,000") { _ in
            try Clock.seconds { _ = try store.cards(in: deck.id, limit: 1_000) }
        }
        let middle = try repeatTimed("list 1,000 from the middle") { _ in
            try Clock.seconds { _ = try store.cards(in: deck.id, limit: 1_000, offset: deckSize / 2) }
        }
        return (first.median, middle.median)
    }

    func moves(listSize: Int) throws -> (median: Double, p95: Double) {
        let (store, _) = try freshStore("moves")
        let list = try store.createList(name: "Long")
        _ = try store.addItems(to: list.id, (0..<listSize).map { ItemDraft(title: "item \($0)") })
        let ids = (try store.list(list.id).items ?? []).map(\.id)
        var random = SystemRandomNumberGenerator()
        var durations: [Double] = []
        let count = max(200, runs * 40)
        for move in 0..<count {
            if move % 20 == 0 { Progress.show("move items: \(move)/\(count)") }
            let id = ids.randomElement(using: &random)!
            let position = Int.random(in: 0..<listSize, using: &random)
            durations.append(try Clock.seconds { _ = try store.moveItem(id, to: position) })
        }
        Progress.done("moved \(count) items in \(list.name): median \(Report.ms(durations.median))")
        let orders = (try store.list(list.id).items ?? []).map(\.orderNumber)
        guard orders == Array(0..<listSize) else { throw CardboxError.storage("order numbers broke after moves") }
        return (durations.median, durations.sorted()[Int(Double(durations.count) * 0.95)])
    }

    /// Next-state computations per second: cards in every phase, every rating, on time and late.
    func schedulerThroughput() throws -> Double {
        let scheduler = try Scheduler()
        let start = Date(timeIntervalSince1970: 1_735_722_000)
        var cards: [MemoryState] = []
        var card = MemoryState.new(at: start)
        for rating in [Rating.good, .good, .good, .again, .hard, .good, .easy, .again, .good, .good] {
            card = scheduler.review(card, rating: rating, at: card.due)
            cards.append(card)
        }
        let count = 2_000_000
        var checksum = 0.0
        let durations = repeatTimed("FSRS-6 \(count) next states") { _ in
            Clock.seconds {
                for index in 0..<count {
                    let from = cards[index % cards.count]
                    let rating = Rating(rawValue: index % 4 + 1)!
                    let at = from.due.addingTimeInterval(Double(index % 7) * 43_200)
                    checksum += scheduler.review(from, rating: rating, at: at).stability ?? 0
                }
            }
        }
        precondition(checksum > 0)
        return Double(count) / durations.median
    }

    /// Answering cards one by one, each fetched from the queue and persisted; and building the first
    /// 1,000 cards of the due queue in a large collection: 60 % review cards due over ±30 days,
    /// 1 % learning cards due within ±10 minutes, the rest new.
    func study(answers: Int, collection size: Int) throws -> (answer: Double, queue: Double) {
        let answering = try repeatTimed("answer \(answers) cards") { run in
            let (store, _) = try freshStore("answer-\(run)")
            let deck = try store.createDeck(name: "Study", frontLanguage: "es", backLanguage: "en")
            var settings = StudySettings()
            settings.newCardsPerDay = answers
            _ = try store.setStudySettings(deck.id, settings)
            _ = try store.addCards(to: deck.id, Self.drafts(answers))
            let ratings = [3, 3, 1, 3, 2, 4, 3, 3]
            return try Clock.seconds {
                for index in 0..<answers {
                    guard let card = try store.dueQueue(in: deck.id, limit: 1).first else {
                        throw CardboxError.storage("the queue ran dry after \(index) answers")
                    }
                    _ = try store.answer(card.id, rating: ratings[index % ratings.count])
                }
            }
        }
        let (store, path) = try freshStore("queue")
        let deck = try store.createDeck(name: "Big", frontLanguage: "es", backLanguage: "en")
        var settings = StudySettings()
        settings.newCardsPerDay = 1_000
        settings.reviewsPerDay = StudyRanges.dailyLimit.upperBound  // no daily cap in reach
        _ = try store.setStudySettings(deck.id, settings)
        for start in stride(from: 0, to: size, by: 10_000) {
            Progress.show("building a \(size)-card collection: \(start)/\(size)")
            _ = try store.addCards(to: deck.id, Self.drafts(min(10_000, size - start)))
        }
        // Give the cards the states a used collection has (as answers would), in one statement.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try shell(
            path,
            """
            UPDATE card SET
              state = CASE WHEN rowid % 10 < 6 THEN 'review' WHEN rowid % 100 = 99 THEN 'learning' ELSE 'new' END,
              step = CASE WHEN rowid % 100 = 99 THEN 1 END,
              stability = CASE WHEN rowid % 10 < 6 OR rowid % 100 = 99 THEN 3.5 END,
              difficulty = CASE WHEN rowid % 10 < 6 OR rowid % 100 = 99 THEN 5.0 END,
              lastReviewAt = CASE WHEN rowid % 10 < 6 OR rowid % 100 = 99 THEN \(now) - 86400000 * 5 END,
              dueAt = CASE WHEN rowid % 10 < 6 THEN \(now) + ((rowid * 7919) % 5184000000) - 2592000000
                           WHEN rowid % 100 = 99 THEN \(now) + ((rowid * 7919) % 1200000) - 600000 END,
              reps = CASE WHEN rowid % 10 < 6 OR rowid % 100 = 99 THEN 3 ELSE 0 END;
            """)
        Progress.done("built a \(size)-card collection")
        let queue = try repeatTimed("first 1,000 of the queue") { _ in
            try Clock.seconds {
                guard try store.dueQueue(in: deck.id, limit: 1_000).count == 1_000 else {
                    throw CardboxError.storage("the queue has fewer than 1,000 cards")
                }
            }
        }
        return (answering.median, queue.median)
    }

    func ankiStudy(script: String, answers: Int, cards: Int) throws -> (version: String, answer: Double, queue: Double)
    {
        Progress.show("Anki study (python3 \(script))")
        let output = try run(
            "/usr/bin/env", ["python3", script, String(answers), String(cards), String(runs)], input: nil)
        struct Result: Decodable {
            var ankiVersion: String
            var answerSeconds: [Double]
            var queueSeconds: [Double]
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(output.utf8))
        Progress.done("Anki \(result.ankiVersion) study: answers \(Report.ms(result.answerSeconds.median))")
        return (result.ankiVersion, result.answerSeconds.median, result.queueSeconds.median)
    }

    func anki(script: String, notes: Int) throws -> (version: String, addOnly: Double, buildAndAdd: Double) {
        Progress.show("Anki add_notes \(notes) (python3 \(script))")
        let output = try run("/usr/bin/env", ["python3", script, String(notes), String(runs)], input: nil)
        struct Result: Decodable {
            var ankiVersion: String
            var addNotesSeconds: [Double]
            var buildAndAddSeconds: [Double]
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(output.utf8))
        Progress.done("Anki \(result.ankiVersion) add_notes: median \(Report.ms(result.addNotesSeconds.median))")
        return (result.ankiVersion, result.addNotesSeconds.median, result.buildAndAddSeconds.median)
    }

    func shell(_ database: String, _ commands: String) throws -> String {
        let script = folder.appendingPathComponent("commands.sql")
        try commands.write(to: script, atomically: true, encoding: .utf8)
        return try shell(database, input: script)
    }

    private func shell(_ database: String, input: URL) throws -> String {
        try run(sqlite3, ["-bail", database], input: input)
    }

    private func run(_ executable: String, _ arguments: [String], input: URL?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CardboxError.storage("\(executable) \(arguments.joined(separator: " ")) failed")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

struct WebAnswerFigures {
    var answer: Double
    var changes: Double
    var bytes: Double? = nil
    /// The answer and the read of what it changed on a store in memory.
    var inMemory: (answer: Double, changes: Double)? = nil
}

enum Clock {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// Progress on stderr: rewritten in place on a terminal, one line each otherwise.
enum Progress {
    static let isTerminal = isatty(STDERR_FILENO) == 1

    static func show(_ message: String) {
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + message : message + "\n").utf8))
    }

    static func done(_ message: String) {
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + message + "\n" : message + "\n").utf8))
    }
}

enum Report {
    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

    static func us(_ seconds: Double) -> String { String(format: "%.0f µs", seconds * 1e6) }

    /// The rows of the web answer's figures (see `Measurements.webAnswers`).
    static func webAnswer(_ figures: WebAnswerFigures) -> [[String]] {
        [
            ["the store's part of a web answer, per answer", us(figures.answer + figures.changes)],
            ["  the answer, checked against its deck, committed", us(figures.answer)],
            ["  then reading what it changed, to push", us(figures.changes)],
            [
                "  bytes written per answer (log and checkpoints)",
                figures.bytes.map { String(format: "%.1f kB", $0 / 1_000) } ?? "not known on this system",
            ],
            [
                "  the same two on a store in memory (no file)",
                figures.inMemory.map { "\(us($0.answer + $0.changes)) (\(us($0.answer)) + \(us($0.changes)))" } ?? "",
            ],
        ]
    }

    static func ratio(_ ours: Double, _ theirs: Double) -> String { String(format: "%.2f×", ours / theirs) }

    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: widths[1] - row[1].count) + row[1] + "  " + row[2]
        }.joined(separator: "\n")
    }
}

extension Array where Element == Double {
    var median: Double {
        let sorted = self.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

extension CardboxBench {
    /// The optimizer's fit alone, in process (the best of `runs`): what fsrs-rs's
    /// `compute_parameters` does when Python calls it, without a process start or a file to read.
    static func fitSeconds(_ path: String, runs: Int) throws -> Double {
        let histories = try ReviewLine.histories(fromFile: path)
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000)
        for _ in 0..<max(1, runs) {
            let start = clock.now
            _ = try FSRSOptimizer().fit(histories)
            best = min(best, clock.now - start)
        }
        return Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
    }
}
