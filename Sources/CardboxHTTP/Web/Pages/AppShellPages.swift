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
        for icon in AppShell.icons {
            router.get(RouterPath(String(icon.path.dropFirst()))) { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: icon.type, .cacheControl: "public, max-age=31536000, immutable"],
                    body: .init(byteBuffer: ByteBuffer(bytes: icon.bytes)))
            }
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
    static let themeColour = "#2962cc"

    /// The app's icon, one drawing (`Web/Icons/icon.svg`) at every size, and the PNGs home screens
    /// ask for, drawn from it by `scripts/make-icons.sh`.
    struct Icon: Sendable {
        /// 0 for the SVG, which any size may use.
        let size: Int
        let type: String
        let bytes: [UInt8]
        /// Versioned by content, so it may be kept for good.
        let path: String

        init(size: Int, bytes: [UInt8]) {
            (self.size, self.bytes) = (size, bytes)
            type = size == 0 ? "image/svg+xml" : "image/png"
            let name = size == 0 ? "icon" : "icon-\(size)"
            path = "/static/\(name)-\(WebAssets.version(of: Data(bytes))).\(size == 0 ? "svg" : "png")"
        }
    }

    static let svgIcon = Icon(size: 0, bytes: PackageResources.icon_svg)
    /// iOS's home screen (square: iOS rounds its corners itself).
    static let touchIcon = Icon(size: 180, bytes: PackageResources.icon_180_png)
    /// Android's and the manifest's.
    static let pngIcons = [
        Icon(size: 192, bytes: PackageResources.icon_192_png), Icon(size: 512, bytes: PackageResources.icon_512_png),
    ]
    static let icons = [svgIcon, touchIcon] + pngIcons
    static let iconPath = svgIcon.path

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
          "icons": [
            {"src": "\(iconPath)", "sizes": "any", "type": "image/svg+xml"},
        \(pngIcons.map { #"    {"src": "\#($0.path)", "sizes": "\#($0.size)x\#($0.size)", "type": "image/png"}"# }
            .joined(separator: ",\n"))
          ]
        }
        """
}
