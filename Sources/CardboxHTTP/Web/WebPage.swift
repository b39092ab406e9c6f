import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore

/// Answers of the web app: a page, a redirect after a form (so a reload does not post it again),
/// or an error shown as a page.
enum WebPage {
    /// Thrown to send the browser elsewhere (a page that needs a session, without one).
    struct Redirect: Error {
        let location: String
        init(to location: String) { self.location = location }
    }

    /// A page rendered from `template` with `page` (its view model: what the template reads),
    /// inside the layout (which takes the session's state from `context`).
    /// With `live` (the account's cursor the page was made at), the page follows the account's
    /// news and loads itself again when the account moves on (see `WebAssets.javascript`).
    static func html<Page: Encodable>(
        _ template: Template, title: String, _ page: Page = NoValues(), context: CardboxRequestContext,
        error: String? = nil, status: HTTPResponse.Status = .ok, live: Int64? = nil
    ) -> Response {
        rendered(template, title: title, page, context: context, error: error, status: status, live: live).response
    }

    /// A page made, before it is sent (see `PageCache`).
    struct Rendered: Sendable {
        let body: ByteBuffer
        let status: HTTPResponse.Status

        var response: Response {
            Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: body))
        }
    }

    /// The page `html` sends.
    static func rendered<Page: Encodable>(
        _ template: Template, title: String, _ page: Page = NoValues(), context: CardboxRequestContext,
        error: String? = nil, status: HTTPResponse.Status = .ok, live: Int64? = nil
    ) -> Rendered {
        let frame = Frame(
            title: title, live: live.map(String.init), signedIn: context.caller != nil,
            account: context.caller?.account.id.uuidString.lowercased(), csrf: context.csrf,
            assets: Frame.Assets(), section: Frame.Section(context.endpointPath), error: error,
            page: page)
        return Rendered(body: ByteBuffer(string: WebTemplates.render(template, frame)), status: status)
    }

    /// What the layout reads around every page; its `page` section holds the page's own template,
    /// so a page's names are found first in its view model, then here (`csrf`, `title`).
    struct Frame<Page: Encodable>: Encodable {
        /// The versioned addresses of what pages load.
        struct Assets: Encodable {
            var css = WebAssets.cssPath
            var javascript = WebAssets.javascriptPath
            var offline = WebAssets.offlineScriptPath
            var replica = WebAssets.replicaScriptPath
            var device = WebAssets.deviceScriptPath
            var icon = AppShell.iconPath
            var touchIcon = AppShell.touchIcon.path
        }

        /// The part of the app a page belongs to, marked in the navigation (`aria-current`).
        struct Section: Encodable {
            var decks = false, lists = false, boards = false, account = false, exchange = false

            init(_ path: String?) {
                let first = path?.split(separator: "/").first ?? ""
                (decks, lists, boards) = (first == "decks", first == "lists", first == "boards")
                (account, exchange) = (first == "account" || first == "users", first == "exchange")
            }
        }

        let title: String
        let live: String?
        let signedIn: Bool
        /// The signed-in account (its replica in the browser is kept apart from any other's).
        let account: String?
        let csrf: String
        let assets: Assets
        let section: Section
        let error: String?
        let page: Page
    }

    /// The view model of a page that shows nothing of its own.
    struct NoValues: Encodable {}

    /// The message page's: a sentence saying what went wrong.
    struct Message: Encodable {
        let message: String
    }

    /// What a refusal says, as the JSON API would say it.
    static func message(_ error: any Error) -> String { JSONErrorMiddleware.answer(for: error).message }

    static func redirect(_ location: String, cookie: Cookie? = nil) -> Response {
        var response = Response(status: .seeOther, headers: [.location: location])
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// An error as a page a person can act on: the message of a refusal (seed 001's card-limit
    /// message, a name already taken), or a plain apology for the server's own failures.
    static func errorPage(_ error: any Error, context: CardboxRequestContext) -> Response {
        if let redirect = error as? Redirect { return Self.redirect(redirect.location) }
        let answer = JSONErrorMiddleware.answer(for: error)
        if answer.status.code >= 500 {
            context.logger.error("page failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        let message = answer.status.code >= 500 ? "Something went wrong on the server; try again." : answer.message
        return html(.message, title: "Cardbox", Message(message: message), context: context, status: answer.status)
    }

    /// A posted form's fields (`application/x-www-form-urlencoded`), by Hummingbird's decoder. At
    /// most 1 MiB: a field may hold 50,000 characters (a card's back, an item's description), and a
    /// character outside ASCII takes up to 12 bytes once encoded.
    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.collectBody(
            upTo: formLimit, tooLarge: "this form is larger than a page sends (1 MiB at most)")
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: String(buffer: buffer))
        } catch {
            throw CardboxError.invalid(field: "form", reason: "is not a form this page sends")
        }
    }
}

extension WebPage {
    static let formLimit = 1024 * 1024
}

/// A form that carries a file (`multipart/form-data`, read with MultipartKit), decoded as `T`.
enum MultipartForm {
    /// Room for a 5 MB image and the form around it.
    static let imageFormLimit = Limits.imageBytes + 128 * 1024
    /// What a body larger than an image may be is refused with (a form's, or a `PUT`'s).
    static let imageTooLarge = "this image is larger than 5 MB (\(Limits.imageBytes) bytes), the most an image may be"

    static func read<T: Decodable>(
        _ request: Request, as type: T.Type, limit: Int = imageFormLimit,
        tooLarge: String = imageTooLarge,
        missing: String
    ) async throws -> T {
        guard let contentType = request.headers[.contentType],
            contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = contentType.split(separator: ";").lazy.map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.lowercased().hasPrefix("boundary=") })?.dropFirst("boundary=".count)
        else {
            throw CardboxError.invalid(field: "form", reason: "a form with a file is sent as multipart/form-data")
        }
        let buffer = try await request.collectBody(upTo: limit, tooLarge: tooLarge)
        do {
            return try FormDataDecoder().decode(
                T.self, from: buffer,
                boundary: String(boundary).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        } catch {
            throw CardboxError.invalid(field: "form", reason: missing)
        }
    }
}

/// An image form's body: its file (its CSRF token is in the form's address: see `PageForms`).
struct ImageUpload: Decodable {
    var image: Data

    static func read(_ request: Request) async throws -> ImageUpload {
        try await MultipartForm.read(
            request, as: ImageUpload.self, missing: "has no image file (choose one, then upload)")
    }
}

/// The import form: the file, and how to place what it holds.
struct ImportForm: Decodable {
    var file: Data
    var deck: String?
    var front: String?
    var back: String?
    var onDuplicate: String?
    /// The format chosen in the page's menu; empty: told from the file.
    var format: String?

    /// The largest file the import page takes (an Anki package with its pictures may be large).
    static let limit = 64 * 1024 * 1024
    static let tooLarge = "this file is larger than 64 MB, the most an import may be"

    static func read(_ request: Request) async throws -> ImportForm {
        try await MultipartForm.read(
            request, as: ImportForm.self, limit: limit,
            tooLarge: tooLarge,
            missing: "has no file (choose one, then import)")
    }

    var options: ImportOptions {
        get throws {
            let text = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
            var options = ImportOptions(
                format: try text(format).map { try WebApp.choice($0, field: "format") },
                onDuplicate: try WebApp.choice(text(onDuplicate) ?? "skip", field: "on duplicate"), deck: text(deck),
                frontLanguage: text(front), backLanguage: text(back) ?? "en")
            options.unknownFormat = "choose it in the Format menu"
            return options
        }
    }
}

/// The card editor's form: every field of a card, and an image to add or replace the card's (a
/// file input left empty sends an empty part).
struct CardForm: Decodable {
    var front: String?
    var back: String?
    var frontLanguage: String?
    var backLanguage: String?
    var cardType: String?
    var notes: String?
    var tags: String?
    var isFavorite: String?
    var removeImage: String?
    var image: Data?

    static func read(_ request: Request) async throws -> CardForm {
        try await MultipartForm.read(request, as: CardForm.self, missing: "is not the card editor's form")
    }

    /// The changes the form asks for: its texts as typed, tags split at commas, the checkboxes.
    var changes: CardChanges {
        CardChanges(
            front: front, back: back ?? "", cardType: cardType, notes: notes ?? "",
            tags: WebApp.tags(tags ?? ""), image: image.flatMap { $0.isEmpty ? nil : $0 },
            removeImage: removeImage == "true", frontLanguage: frontLanguage, backLanguage: backLanguage,
            isFavorite: isFavorite == "true")
    }
}
