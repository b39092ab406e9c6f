import CardboxCore
import CardboxExchange
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird
import NIOCore

/// The import and export page; after an import, its report.
struct ExchangePage: Encodable {
    struct Deck: Encodable {
        let id: String
        let name: String
    }

    struct Report: Encodable {
        let lines: [String]
    }

    let decks: [Deck]
    let hasDecks: Bool
    /// The deck typed before a refusal.
    let typedDeck: String
    let frontLanguages: [LanguageChoice]
    let backLanguages: [LanguageChoice]
    let formats: [MenuOption]
    let duplicates: [MenuOption]
    let report: Report?
}

/// Import and export.
extension WebApp {
    func addExchangeRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("exchange") { _, context in try await exchangePage(context) }
        pages.post("exchange/import") { request, context in
            let form = try await ImportForm.read(request)
            do {
                let report = try await actions.importFile(try context.pageCaller(), form.file, try form.options)
                return try await exchangePage(context, report: report)
            } catch let error as CardboxError {
                return try await exchangePage(context, typed: form, error: WebPage.message(error))
            }
        }
        pages.get("exchange/export/:format") { request, context in
            try await Self.download(actions, request, context, caller: try context.pageCaller())
        }
    }

    /// The import page's Format menu, in the order it lists them.
    private static let formatLabels: KeyValuePairs<ImportFileFormat, String> = [
        .apkg: "Anki package (.apkg)", .csv: "CSV (Anki's plain text)", .tsv: "TSV (Anki's plain text)",
        .listall: "ListAll JSON", .trello: "Trello board (JSON)", .backup: "Cardbox backup",
    ]

    private static let duplicateLabels: [DuplicatePolicy: String] = [
        .skip: "skip them", .replace: "replace them", .copy: "keep both",
    ]

    /// Import (a file and where its cards go) and export (a backup, ListAll JSON, a deck as TSV or
    /// CSV); after an import, its report. After a refusal, `typed` fills the form again (all but
    /// the file, which a browser never lets a page choose).
    private func exchangePage(
        _ context: CardboxRequestContext, report: ImportReport? = nil, typed: ImportForm? = nil, error: String? = nil
    ) async throws -> Response {
        let (decks, _) = try await actions.decks(try context.pageCaller())
        let format = typed?.format ?? ""
        let page = ExchangePage(
            decks: decks.map { .init(id: $0.deck.id.description, name: $0.deck.name) }, hasDecks: !decks.isEmpty,
            typedDeck: typed?.deck ?? "", frontLanguages: LanguageChoice.all(selected: typed?.front ?? ""),
            backLanguages: LanguageChoice.all(selected: typed?.back ?? "en"),
            formats: [MenuOption(value: "", label: "Tell from the file", selected: format.isEmpty)]
                + Self.formatLabels.map { .init(value: $0.rawValue, label: $1, selected: $0.rawValue == format) },
            duplicates: DuplicatePolicy.allCases.map {
                .init(
                    value: $0.rawValue, label: Self.duplicateLabels[$0] ?? "",
                    selected: $0.rawValue == typed?.onDuplicate)
            },
            report: report.map { .init(lines: $0.lines.isEmpty ? ["nothing to import"] : $0.lines) })
        return WebPage.html(
            .exchange, title: "Import and export", page, context: context, error: error,
            status: error == nil ? .ok : .badRequest)
    }

    /// A file of the account to download: `:format` is listall, backup, csv or tsv (`?deck=` for
    /// the last two; `?list=` narrows ListAll to one list).
    static func download(
        _ actions: AccountActions, _ request: Request, _ context: CardboxRequestContext, caller: Caller
    ) async throws -> Response {
        let format: ExportFormat = try choice(context, "format")
        let deck: DeckID? = try request.textQuery("deck").map { try id($0, kind: "deck") }
        let list: ListID? = try request.textQuery("list").map { try id($0, kind: "list") }
        let file = try await actions.export(caller, format, deck: deck, list: list)
        return Response(
            status: .ok,
            headers: [
                .contentType: format.mimeType, .contentDisposition: "attachment; filename=\"\(format.fileName)\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
    }
}
