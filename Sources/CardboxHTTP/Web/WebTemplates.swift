import CardboxCore
import Mustache

/// The web app's pages, as Mustache templates: the files of `Web/Templates`, embedded in the binary
/// by SwiftPM (`.embedInCode`: nothing to install beside it). Every page fills the `layout` parent;
/// the pages a browser also draws offline (`Template.drawnOffline`) fill it with a body of their
/// own, which the browser's replica renders with the same model (`WebPageModels`, mustache.js);
/// `{{name}}` escapes HTML, so whatever a person typed shows as text (a card titled `<script>`
/// included). The few raw `{{{…}}}` are markup this code made.
enum Template: String, CaseIterable, Sendable {
    case layout, signin, signup, newaccount, setup, decks, deck, card, stats, exchange, study, account,
        message, lists, list, boards, board, offline, offlinelists, listsbody, listbody, studybody,
        boardsbody, boardbody, deckbody, cardbody, users

    /// The bodies the browser draws from its replica with no network, by the names the pages use.
    static let drawnOffline: [Template] = [
        .listsbody, .listbody, .studybody, .boardsbody, .boardbody, .deckbody, .cardbody,
    ]

    /// The template's text, as its file holds it.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    private var bytes: [UInt8] {
        switch self {
        case .layout: PackageResources.layout_mustache
        case .signin: PackageResources.signin_mustache
        case .signup: PackageResources.signup_mustache
        case .newaccount: PackageResources.newaccount_mustache
        case .setup: PackageResources.setup_mustache
        case .decks: PackageResources.decks_mustache
        case .deck: PackageResources.deck_mustache
        case .card: PackageResources.card_mustache
        case .stats: PackageResources.stats_mustache
        case .exchange: PackageResources.exchange_mustache
        case .study: PackageResources.study_mustache
        case .account: PackageResources.account_mustache
        case .users: PackageResources.users_mustache
        case .message: PackageResources.message_mustache
        case .lists: PackageResources.lists_mustache
        case .list: PackageResources.list_mustache
        case .boards: PackageResources.boards_mustache
        case .board: PackageResources.board_mustache
        case .offline: PackageResources.offline_mustache
        case .offlinelists: PackageResources.offlinelists_mustache
        case .listsbody: PackageResources.listsbody_mustache
        case .listbody: PackageResources.listbody_mustache
        case .studybody: PackageResources.studybody_mustache
        case .boardsbody: PackageResources.boardsbody_mustache
        case .boardbody: PackageResources.boardbody_mustache
        case .deckbody: PackageResources.deckbody_mustache
        case .cardbody: PackageResources.cardbody_mustache
        }
    }
}

enum WebTemplates {
    static let library: MustacheLibrary = {
        MustacheContentTypes.register(EscapedByBytes(), named: EscapedByBytes.name)
        var library = MustacheLibrary()
        for template in Template.allCases {
            // The templates are part of the program: one that does not parse is a bug found by any test.
            try! library.register(
                "{{% CONTENT_TYPE: \(EscapedByBytes.name)}}" + template.text, named: template.rawValue)
        }
        return library
    }()

    /// How `{{…}}` escapes, chosen at the top of every template: `HTMLText.escape`, byte by byte.
    /// swift-mustache's own HTML escape looks characters up whole, and a Swift `Character` is a
    /// grapheme: a `"` or `<` followed by a combining mark (U+0301) is one, found in no table, and
    /// went out as it was, so a name could end the attribute it was the value of. (Each template
    /// chooses it: the library gives every partial and parent its default again.)
    struct EscapedByBytes: MustacheContentType {
        static let name = "HTML_BYTES"
        func escapeText(_ text: String) -> String { HTMLText.escape(text) }
    }

    /// `template` filled from `values`: a view model whose fields are the names the template reads.
    static func render(_ template: Template, _ values: some Encodable) -> String {
        // Every case names a registered template: nil here is a template that did not parse.
        library.render(TemplateValues.of(values), withTemplate: template.rawValue) ?? ""
    }
}
