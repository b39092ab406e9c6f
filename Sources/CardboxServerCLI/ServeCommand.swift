import ArgumentParser
import CardboxCLI
import CardboxCore
import CardboxHTTP
import CardboxServer
import CardboxServerPostgres
import CardboxSuggest
import CardboxSuggestServices
import Foundation
import Logging

/// `--database` for the server's commands: a file (the embedded default) or PostgreSQL.
struct ServerDatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The server's database: an SQLite file's path, or postgres://user:password@host:port/database (default: server.sqlite in the data folder)."
    )
    var database: String?

    func location(variable: (String) -> String? = Terminal.current.variable) -> String {
        if let database, !database.isEmpty { return database }
        return GlobalOptions.dataFolder(variable: variable).appendingPathComponent("server.sqlite").path
    }

    /// Opens the database, runs `body`, and closes it, whatever happens.
    func with<T>(_ body: (any ServerDatabase) async throws -> T) async throws -> T {
        let database = try await openServerDatabase(location())
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server: accounts, devices and their changes, over HTTP.",
        discussion: """
            Devices sign in with 'cardbox login' and sync with 'cardbox sync'. Accounts are made with \
            'cardbox admin user add', or by anyone with --open-signup. Stops gracefully on SIGTERM or SIGINT.

            While the server has no account, it prints a one-time setup link: opening it makes the first \
            account. Behind a reverse proxy, give --public-url (the address people use) and --trusted-proxy \
            (the proxy's address); requests naming another host are refused.

            Examples:
              cardbox serve --port 8080
              cardbox serve --database postgres://cardbox@127.0.0.1/cardbox --host 0.0.0.0
              cardbox serve --public-url https://cards.example.com --trusted-proxy 127.0.0.1
            """)

    @Option(name: .long, help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .long, help: "The port to listen on (0: any free port, printed once listening).") var port = 8080
    @OptionGroup var database: ServerDatabaseOptions
    @Flag(name: .long, help: "Let anyone create an account (POST /v1/accounts).") var openSignup = false
    @Option(name: .long, help: "Serve HTTPS with this certificate chain (PEM); needs --tls-key.")
    var tlsCertificate: String?
    @Option(name: .long, help: "The certificate's private key (PEM).") var tlsKey: String?
    @Option(name: .long, help: "Requests each account may make per second, on average (bursts of 20 times that).")
    var rateLimit = 50
    @Option(
        name: .long,
        help:
            "Where to keep the server's copy of each account, handed to new devices whole (default: server-cache beside an SQLite database, else in the data folder; 'none' keeps none). Only a cache: it fills again from the database."
    )
    var cacheFolder: String?
    @Option(
        name: .long,
        help:
            "Where background suggestions come from: offline (WordNet, FreeDict), chat (an OpenAI-compatible service, see 'cardbox suggestion refill --help') or off."
    )
    var suggestions = "offline"
    @Option(name: .long, help: "Where suggestions' images come from: drawn, openai or none.") var images = "drawn"
    @Option(
        name: .long,
        help:
            "Seconds between background sweeps over every account (an account's own changes, and its images due to be tried again, start a pass at once)."
    )
    var suggestionInterval = 3600
    @Option(
        name: .long,
        help:
            "The address people and devices reach the server at (e.g. https://cards.example.com behind a TLS proxy): requests naming another host are refused, and with https the session cookie is Secure."
    )
    var publicURL: String?
    @Option(
        name: .long,
        help:
            "A reverse proxy's address whose X-Forwarded-For is believed (repeat for several): sign-ins are throttled by the client address it forwards."
    )
    var trustedProxy: [String] = []
    @Option(
        name: .long,
        help:
            "A token that reading /metrics needs (Authorization: Bearer TOKEN); without it, /metrics answers this machine only."
    )
    var metricsToken: String?
    @Option(
        name: .long,
        help:
            "Serve /metrics on this address of its own instead, to whoever reaches it (e.g. 127.0.0.1:9100); the main address then has none."
    )
    var metricsListen: String?
    @Option(
        name: .long,
        help:
            "Connections one client address may hold open at once (a trusted proxy's address has no cap); past it a new one is closed."
    )
    var connectionsPerAddress = 64
    @Option(
        name: .long,
        help:
            "bcrypt's cost for passwords (4 to 31, default 12: about a quarter of a second a check here); lower only for load tests."
    )
    var passwordCost = 12

    func validate() throws {
        guard (4...31).contains(passwordCost) else {
            throw ValidationError("--password-cost must be 4 to 31, got \(passwordCost)")
        }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false
            else {
                throw ValidationError("--public-url must be an http:// or https:// address, got '\(publicURL)'")
            }
        }
        if let metricsListen, Self.hostAndPort(metricsListen) == nil {
            throw ValidationError("--metrics-listen must be HOST:PORT (e.g. 127.0.0.1:9100), got '\(metricsListen)'")
        }
        if let metricsToken, metricsToken.count < 16 {
            throw ValidationError("--metrics-token must be at least 16 characters, got \(metricsToken.count)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together")
        }
        guard connectionsPerAddress >= 1 else {
            throw ValidationError("--connections-per-address must be 1 or more, got \(connectionsPerAddress)")
        }
        guard rateLimit >= 1 else { throw ValidationError("--rate-limit must be 1 or more, got \(rateLimit)") }
        guard suggestionInterval >= 1 else {
            throw ValidationError("--suggestion-interval must be 1 or more, got \(suggestionInterval)")
        }
    }

    func run() async throws {
        let logger = Logger(label: "cardbox.server")
        // The server's database, its cache of accounts' stores and their images are the account
        // holders' data: readable by the server's user only.
        umask(0o077)
        try await database.with { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: UInt8(passwordCost)))
            var options = ServerOptions(openSignup: openSignup)
            options.requestsPerSecond = Double(rateLimit)
            options.replicaFolder = replicaFolder()
            options.publicURL = publicURL.flatMap { URL(string: $0) }
            options.trustedProxies = Set(trustedProxy)
            options.metricsToken = metricsToken
            options.metricsListen = metricsListen.flatMap(Self.hostAndPort)
            options.connectionLimits.perAddress = connectionsPerAddress
            if suggestions != "off" {
                options.suggestions = SuggestionServiceSettings(
                    suggestions: try ProviderChoice.suggestions(suggestions, environment: Terminal.current.environment),
                    images: try ProviderChoice.images(images, environment: Terminal.current.environment),
                    interval: .seconds(suggestionInterval))
            }
            let tls = tlsCertificate.flatMap { certificate in tlsKey.map { (certificate, $0) } }
            let scheme = tls == nil ? "http" : "https"
            // The link is one per database: a server started later on the same one replaces it.
            let setupToken = try await database.accounts().isEmpty ? try await accounts.newSetupLink() : nil
            let app = try CardboxApplication.make(
                database: database, accounts: accounts, options: options, host: host, port: port, tls: tls,
                logger: logger
            ) { [options, setupToken] port in
                let address = options.publicURL?.absoluteString ?? "\(scheme)://\(host):\(port)"
                let root = address.hasSuffix("/") ? String(address.dropLast()) : address
                Terminal.current.print("listening on \(scheme)://\(host):\(port)")
                if let token = setupToken {
                    Terminal.current.print("create the first account at \(root)/setup?token=\(token)")
                    Terminal.current.print("(the link works once, for an hour; a restart prints a new one)")
                } else {
                    Terminal.current.print("open \(root)/ in a browser to sign in")
                }
            } onMetricsRunning: { [logger, options] port in
                logger.notice("metrics on http://\(options.metricsListen?.host ?? host):\(port)/metrics")
            }
            try await app.runService()
            logger.notice("stopped")
        }
    }

    /// `HOST:PORT` (an IPv6 host in brackets: `[::1]:9100`) as its parts; nil when it is not one.
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    private func replicaFolder(variable: (String) -> String? = Terminal.current.variable) -> URL? {
        if cacheFolder == "none" { return nil }
        if let cacheFolder, !cacheFolder.isEmpty { return URL(fileURLWithPath: cacheFolder) }
        let location = database.location(variable: variable)
        let folder =
            location.hasPrefix("postgres")
            ? GlobalOptions.dataFolder(variable: variable)
            : URL(fileURLWithPath: location).deletingLastPathComponent()
        return folder.appendingPathComponent("server-cache")
    }
}
