/// A browser's name as a person reads it in the account's devices ("Chrome on Linux"), from its
/// `User-Agent` header. Only the common browsers and systems are named; anything else is "a web
/// browser", never a cut-off header.
enum BrowserName {
    /// Tokens of the header, checked in order: browsers built on Chrome also say "Chrome", and
    /// Chrome also says "Safari", so the more specific comes first.
    private static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
        ("SamsungBrowser/", "Samsung Internet"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Safari/", "Safari"),
    ]
    private static let systems: [(token: String, name: String)] = [
        ("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"), ("CrOS", "ChromeOS"),
        ("Mac OS X", "macOS"), ("Linux", "Linux"),
    ]

    static func describe(userAgent: String?) -> String {
        guard let userAgent else { return "Web browser" }
        let browser = browsers.first { userAgent.contains($0.token) }?.name
        let system = systems.first { userAgent.contains($0.token) }?.name
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return "Web browser on \(system)"
        case (nil, nil): return "Web browser"
        }
    }
}
