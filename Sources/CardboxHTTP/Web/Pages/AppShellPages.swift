import CardboxCore
import CardboxSync
import Foundation
import Hummingbird
import NIOCore

/// The installable app: its manifest and icon, the service worker, and the offline pages it shows
/// for a study or list page the network cannot reach, drawn from the browser's replica (see
/// `Web/Scripts/device.js`).
extension WebApp {
    func addAppShellRoutes(to router: Router<CardboxRequestContext>) {
        router.get("manifest.webmanifest") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/manifest+json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: AppShell.manifest)))
        }
        router.get(RouterPath(String(AppShell.iconPath.dropFirst()))) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "image/svg+xml", .cacheControl: "public, max-age=31536000, immutable"],
                body: .init(byteBuffer: ByteBuffer(string: AppShell.icon)))
        }
        // At the root, so it may look after every page; asked for again at each visit, never kept.
        router.get("service-worker.js") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: AppShell.serviceWorker)))
        }
        // The same for everyone (no session: they are kept by the browser).
        for (path, template, title) in [
            (AppShell.offlinePage, Template.offline, "Offline"),
            (AppShell.offlineListsPage, Template.offlinelists, "Offline"),
        ] {
            router.get(RouterPath(String(path.dropFirst()))) { _, context in
                var response = WebPage.html(template, title: title, context: context)
                response.headers[.cacheControl] = "no-cache"
                return response
            }
        }
    }
}

/// What the installable app is made of.
enum AppShell {
    /// What a deck's page or its study page shows with no network, drawn from the browser's replica.
    static let offlinePage = "/offline"
    /// What a list or board page shows with no network, drawn from the browser's replica.
    static let offlineListsPage = "/offline/lists"
    static let iconPath = "/static/icon-\(WebAssets.version(of: icon)).svg"
    static let themeColour = "#2f6fde"

    /// What the service worker keeps: every address the offline page needs.
    static let paths = [
        offlinePage, offlineListsPage, WebAssets.cssPath, WebAssets.javascriptPath, WebAssets.offlineScriptPath,
        WebAssets.replicaScriptPath, WebAssets.replicaModulePath, WebAssets.deviceScriptPath, WebAssets.pagesScriptPath,
        iconPath,
    ]

    /// The service worker, told what to keep: its version changes with any of it (the offline
    /// page's templates included), so a new Cardbox replaces what browsers kept.
    static let serviceWorker: String = {
        let version = WebAssets.version(
            of: paths.joined(separator: " ") + Template.offline.text + Template.offlinelists.text + Template.layout.text
        )
        let shell =
            #"{"version": "\#(version)", "offlinePage": "\#(offlinePage)", "offlineListsPage": "\#(offlineListsPage)", "paths": ["#
            + paths.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        return "self.cardboxShell = \(shell);\n"
            + String(decoding: PackageResources.service_worker_js, as: UTF8.self)
    }()

    static let manifest = """
        {
          "name": "Cardbox",
          "short_name": "Cardbox",
          "description": "Flashcard decks, lists and boards, studied with FSRS, on every device.",
          "start_url": "/decks",
          "scope": "/",
          "display": "standalone",
          "background_color": "#f6f7f9",
          "theme_color": "\(themeColour)",
          "icons": [{"src": "\(iconPath)", "sizes": "any", "type": "image/svg+xml", "purpose": "any maskable"}]
        }
        """

    /// A box of cards, the front one showing a check: drawn for any size.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
        <rect width="512" height="512" rx="96" fill="\(themeColour)"/>
        <rect x="136" y="104" width="264" height="184" rx="24" fill="#c9dafc" transform="rotate(-8 268 196)"/>
        <rect x="120" y="136" width="272" height="192" rx="24" fill="#ffffff"/>
        <path d="M196 232l40 40 84-84" fill="none" stroke="\(themeColour)" stroke-width="28" stroke-linecap="round" \
        stroke-linejoin="round"/>
        <rect x="96" y="296" width="320" height="120" rx="28" fill="#1b4fb0"/>
        </svg>
        """
}
