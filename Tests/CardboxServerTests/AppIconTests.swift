import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Home screens find Cardbox's icon: the manifest names an SVG and PNGs of 192 and 512 px (Android,
/// Chromium), every page names a 180 px PNG for iOS, and each address answers with that picture.
@Suite("The app's icons")
struct AppIconTests {
    struct Manifest: Decodable {
        struct Icon: Decodable {
            var src: String
            var sizes: String
            var type: String
        }
        var icons: [Icon]
    }

    /// A PNG's width and height, from its header chunk.
    static func pngSize(_ bytes: ByteBuffer) -> (Int, Int)? {
        let data = Array(buffer: bytes)
        guard data.count > 24, data[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            data[12..<16] == Array("IHDR".utf8)[...]
        else { return nil }
        func number(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    @Test("the manifest's icons and the page's apple-touch-icon are there at the sizes they claim")
    func icons() async throws {
        try await ResponsePolicyTests.withRouter(secure: false) { client in
            let manifest = try await client.execute(uri: "/manifest.webmanifest", method: .get)
            let icons = try JSONDecoder().decode(Manifest.self, from: Data(buffer: manifest.body)).icons
            #expect(icons.map(\.sizes) == ["any", "192x192", "512x512"])
            for icon in icons {
                let answer = try await client.execute(uri: icon.src, method: .get)
                #expect(answer.status == .ok && answer.headers[.contentType] == icon.type, "\(icon.src)")
                #expect(answer.headers[.cacheControl]?.contains("immutable") == true)
                if icon.type == "image/png" {
                    let side = Int(icon.sizes.prefix { $0 != "x" })!
                    #expect(Self.pngSize(answer.body).map { [$0.0, $0.1] } == [side, side], "\(icon.src)")
                } else {
                    #expect(String(buffer: answer.body).hasPrefix("<svg"))
                }
            }

            let page = String(buffer: try await client.execute(uri: "/signin", method: .get).body)
            let link = try #require(page.firstMatch(of: /<link rel="apple-touch-icon" href="([^"]+)">/))
            let touch = try await client.execute(uri: String(link.1), method: .get)
            #expect(touch.status == .ok && touch.headers[.contentType] == "image/png")
            #expect(Self.pngSize(touch.body).map { [$0.0, $0.1] } == [180, 180])
        }
    }
}
