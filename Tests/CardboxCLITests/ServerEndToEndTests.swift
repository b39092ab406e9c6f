import CardboxImaging
import CardboxTestSupport
import Foundation
import Testing

/// `cardbox serve` as a process, on a free loopback port, stopped with SIGTERM.
final class ServerProcess {
    let process = Process()
    let url: String

    init(
        database: String, port: Int = 0, extraArguments: [String] = [], environment: [String: String] = [:]
    ) throws {
        process.executableURL = try CLI.builtBinary()
        process.arguments = ["serve", "--port", String(port), "--database", database] + extraArguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-serve-\(UUID()).log").path
        self.logPath = logPath
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        // The first line says where it listens; the second, where to go next (the setup link of a
        // server with no account).
        var printed = Data()
        while printed.count { $0 == UInt8(ascii: "\n") } < 2 {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CLIHarnessError("cardbox serve exited before listening") }
            printed += chunk
        }
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines[0].hasPrefix("listening on ") else { throw CLIHarnessError("cardbox serve printed '\(lines[0])'") }
        url = String(lines[0].dropFirst("listening on ".count))
        nextStep = lines[1]
    }

    /// What it said to do once listening: open the setup link, or sign in.
    let nextStep: String
    /// Where its log (standard error) goes.
    let logPath: String

    /// What it has logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The port it listens on.
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Returns once `/metrics` (served to this machine) has a line that starts with `line`, or
    /// throws after `seconds`: how a test waits for what the server does in the background.
    func waitForMetric(_ line: String, seconds: Double = 15) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-s", url + "/metrics"]
            let out = Pipe()
            curl.standardOutput = out
            try curl.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            curl.waitUntilExit()
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(line) }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw CLIHarnessError("/metrics had no line '\(line)' after \(seconds) s")
    }

    /// Stops it as a service manager would, and returns its exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("The sync server and clients, as processes")
struct ServerEndToEndTests {
    @Test("serve; two stores log in, edit offline, sync, and end up the same")
    func twoDevices() throws {
        let admin = try CLI()
        defer { admin.remove() }
        let added = try admin.runProcess(
            [
                "admin", "--database", admin.folder.appendingPathComponent("server.sqlite").path, "user", "add", "ana",
                "--password-stdin", "--plan", "premium",
            ], store: false, input: "correct horse\n")
        #expect(added.status == 0, "\(added.stderr)")
        let server = try ServerProcess(database: admin.folder.appendingPathComponent("server.sqlite").path)
        let phone = try CLI()
        let laptop = try CLI()
        defer {
            phone.remove()
            laptop.remove()
        }
        // The phone has a deck before it signs in; it comes along into the account.
        #expect(try phone.runProcess(["deck", "create", "Spanish", "--front", "es", "--back", "en"]).status == 0)
        #expect(try phone.runProcess(["card", "add", "Spanish", "hola", "hello", "--tag", "greeting"]).status == 0)
        for (device, name) in [(phone, "phone"), (laptop, "laptop")] {
            let login = try device.runProcess(
                ["login", server.url, "--user", "ana", "--password-stdin", "--device", name], input: "correct horse\n")
            #expect(login.status == 0 && login.stdout.contains("signed in"), "\(login.stderr)")
        }
        // Signing in again as the same account asks the server again; another account needs a logout.
        let wrong = try laptop.runProcess(
            ["login", server.url, "--user", "ana", "--password-stdin"], input: "wrong password\n")
        #expect(wrong.status == 1 && wrong.stderr.contains("401"), "\(wrong.stderr)")
        let other = try laptop.runProcess(
            ["login", server.url, "--user", "bea", "--password-stdin"], input: "correct horse\n")
        #expect(other.status == 1 && other.stderr.contains("signed in to \(server.url) as ana; cardbox logout first"))
        for (index, device) in [phone, laptop, phone].enumerated() {
            let synced = try device.runProcess(["sync"])
            #expect(synced.status == 0 && synced.stdout.hasPrefix("synced:"), "\(synced.stderr)")
            // The laptop holds nothing yet: it starts from the server's copy of the account.
            #expect(synced.stdout.contains("server's copy") == (index == 1))
        }
        // Offline edits on both, then sync.
        #expect(try laptop.runProcess(["list", "create", "Groceries"]).status == 0)
        #expect(try phone.runProcess(["card", "add", "Spanish", "adiós", "goodbye"]).status == 0)
        let status = try laptop.runProcess(["sync", "status", "--json"])
        let pending = try #require(try status.json() as? [String: Any])["pending"] as? Int
        #expect(pending ?? 0 > 0)
        for device in [laptop, phone, laptop] { #expect(try device.runProcess(["sync"]).status == 0) }
        for command in [["card", "list", "Spanish", "--json"], ["list", "list", "--json"], ["plan", "show"]] {
            #expect(try phone.runProcess(command).stdout == laptop.runProcess(command).stdout)
        }
        #expect(try laptop.runProcess(["plan", "show"]).stdout.contains("premium"))
        let after = try laptop.runProcess(["sync", "status"])
        #expect(after.stdout.contains("pending: 0") && after.stdout.contains("ana"))
        // Signed out from elsewhere (here by the administrator), a device is told the one command
        // that fixes it; signing in again as the same account keeps its store.
        let database = admin.folder.appendingPathComponent("server.sqlite").path
        let devices = try #require(
            try admin.runProcess(["admin", "--database", database, "device", "list", "ana", "--json"], store: false)
                .json() as? [[String: Any]])
        let laptopId = try #require(devices.first { $0["name"] as? String == "laptop" }?["id"] as? String)
        let revoked = try admin.runProcess(
            ["admin", "--database", database, "device", "revoke", "ana", laptopId], store: false)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let signedOut = try laptop.runProcess(["sync"])
        #expect(
            signedOut.status == 1
                && signedOut.stderr.contains(
                    "this device was signed out of \(server.url); sign in again: cardbox login \(server.url) --user ana"
                ),
            "\(signedOut.stderr)")
        let again = try laptop.runProcess(
            ["login", server.url, "--user", "ana", "--password-stdin"], input: "correct horse\n")
        #expect(again.status == 0 && again.stdout.contains("signed in"), "\(again.stderr)")
        #expect(try laptop.runProcess(["sync"]).status == 0)
        #expect(
            try laptop.runProcess(["card", "list", "Spanish", "--json"]).stdout
                == phone.runProcess(["card", "list", "Spanish", "--json"]).stdout)
        // Signed out, a store keeps its data and syncs no more.
        #expect(try phone.runProcess(["logout"]).stdout.contains("signed out"))
        let refused = try phone.runProcess(["sync"])
        #expect(refused.status == 1 && refused.stderr.contains("not signed in"))
        #expect(server.stop() == 0)
        // The server is down: a sync fails with a clear error and loses nothing.
        #expect(try laptop.runProcess(["card", "add", "Spanish", "gato", "cat"]).status == 0)
        let down = try laptop.runProcess(["sync"])
        #expect(down.status == 1 && down.stderr.contains("cannot reach"))
        let kept = try laptop.runProcess(["sync", "status"])
        #expect(kept.stdout.contains("pending: 1 local change\n") && kept.stdout.contains("last error: cannot reach"))
    }

    @Test("an image decoder that crashes on the server costs that image an error; the server goes on serving")
    func decoderCrash() throws {
        let admin = try CLI()
        defer { admin.remove() }
        let database = admin.folder.appendingPathComponent("server.sqlite").path
        let added = try admin.runProcess(
            ["admin", "--database", database, "user", "add", "ana", "--password-stdin", "--plan", "premium"],
            store: false, input: "correct horse\n")
        #expect(added.status == 0, "\(added.stderr)")
        // The server's image workers abort on any image holding these bytes; the devices' do not.
        let server = try ServerProcess(
            database: database, environment: ["CARDBOX_IMAGE_WORKER_FAULT": "crash:POISONED-IMAGE"])
        defer { _ = server.stop() }
        let (phone, laptop) = (try CLI(), try CLI())
        defer {
            phone.remove()
            laptop.remove()
        }
        let sample = try ImageIngest.sample(width: 40, height: 30, format: .png)
        let poisoned = phone.folder.appendingPathComponent("poisoned.png")
        let good = laptop.folder.appendingPathComponent("good.png")
        try (sample + Data("POISONED-IMAGE".utf8)).write(to: poisoned)
        try sample.write(to: good)
        for (device, image, deck) in [(phone, poisoned, "Fotos"), (laptop, good, "Bilder")] {
            let login = try device.runProcess(
                ["login", server.url, "--user", "ana", "--password-stdin"], input: "correct horse\n")
            #expect(login.status == 0, "\(login.stderr)")
            #expect(try device.runProcess(["deck", "create", deck, "--front", "es", "--back", "en"]).status == 0)
            let card = try device.runProcess(["card", "add", deck, image.lastPathComponent, "x", "--image", image.path])
            #expect(card.status == 0, "\(card.stderr)")
        }
        let refused = try phone.runProcess(["sync"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("cannot be decoded: the image decoder stopped on it (signal 6)"),
            "\(refused.stderr)")
        // The server still serves: the other device's image goes through, and the phone's cards too.
        let synced = try laptop.runProcess(["sync"])
        #expect(synced.status == 0 && synced.stdout.contains("images sent 1"), "\(synced.stdout) \(synced.stderr)")
        #expect(server.process.isRunning)
        #expect(try laptop.runProcess(["card", "list", "Fotos"]).stdout.contains("poisoned.png"))
    }

    @Test("the server's database is its user's only, whichever command makes it; one readable by others is closed")
    func databaseModes() throws {
        let admin = try CLI()
        defer { admin.remove() }
        let folder = admin.folder.appendingPathComponent("data/server")
        let database = folder.appendingPathComponent("server.sqlite").path
        func permissions(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        let added = try admin.runProcess(
            ["admin", "--database", database, "user", "add", "ana", "--password-stdin"], store: false,
            input: "correct horse\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try permissions(database) == 0o600 && permissions(folder.path) == 0o700)
        // Left readable by all (an older Cardbox, a copy): the next command closes it again.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        #expect(try admin.runProcess(["admin", "--database", database, "user", "list"], store: false).status == 0)
        #expect(try permissions(database) == 0o600)
    }

    @Test(
        "serve prints a setup link while it has no account and keeps its files to itself; on a signed-in store the plan is the server's"
    )
    func exposedServer() throws {
        let admin = try CLI()
        defer { admin.remove() }
        let database = admin.folder.appendingPathComponent("server.sqlite").path
        let server = try ServerProcess(database: database)
        var stopped = false
        defer { if !stopped { _ = server.stop() } }
        #expect(
            server.nextStep.range(
                of: #"^create the first account at http://\S+/setup\?token=[0-9a-f]{32}$"#, options: .regularExpression)
                != nil, "\(server.nextStep)")
        func permissions(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try permissions(database) == 0o600)
        #expect(try permissions(admin.folder.appendingPathComponent("server-cache").path) == 0o700)
        _ = try admin.runProcess(
            ["admin", "--database", database, "user", "add", "ana", "--password-stdin"], store: false,
            input: "correct horse\n")
        let laptop = try CLI()
        defer { laptop.remove() }
        #expect(
            try laptop.runProcess(["login", server.url, "--user", "ana", "--password-stdin"], input: "correct horse\n")
                .status == 0)
        #expect(try permissions(laptop.storePath) == 0o600)
        // Signed in and holding nothing yet: nothing of its own waits to be sent.
        #expect(try laptop.runProcess(["sync", "status"]).stdout.contains("pending: 0 local changes"))
        // The plan is the account's, on the server: the store says who changes it.
        let premium = try laptop.runProcess(["plan", "set", "premium"])
        #expect(premium.status == 1 && premium.stderr.contains("'cardbox admin user set-plan ana premium'"))
        let preset = try laptop.runProcess(["deck", "create", "--preset", "spanish-basics"])
        #expect(
            preset.status == 1 && preset.stderr.contains("Card limit exceeded. You have 0 cards out of 25 allowed."))
        #expect(preset.stderr.contains("signed in to \(server.url)") && preset.stderr.contains("set-plan ana premium"))
        #expect(!preset.stderr.contains("'cardbox plan set premium'"))
        // A login or sync that fails says why in words a person acts on, and leaves no store behind.
        let stranger = try CLI()
        defer { stranger.remove() }
        let https = server.url.replacingOccurrences(of: "http://", with: "https://")
        for (address, input, reason) in [
            ("http://127.0.0.1:1", "correct horse\n", "connection refused (is the server running, on this port?)"),
            (https, "correct horse\n", "does the server speak HTTPS?"),
            (
                server.url + "/decks", "correct horse\n",
                "give the server's own address, e.g. \(server.url), not a page's"
            ),
            (server.url, "wrong horse\n", "wrong user name or password"),
        ] {
            let failed = try stranger.runProcess(["login", address, "--user", "ana", "--password-stdin"], input: input)
            #expect(failed.status == 1 && failed.stderr.contains(reason), "\(failed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stranger.storePath))
        }
        for command in [["sync"], ["sync", "status"]] {
            let failed = try stranger.runProcess(command)
            #expect(failed.status == 1 && failed.stderr.contains("there is no store at \(stranger.storePath)"))
            #expect(!FileManager.default.fileExists(atPath: stranger.storePath))
        }
        // Stopped as a service manager stops it, it says so in its log.
        #expect(server.stop() == 0)
        stopped = true
        #expect(server.log.contains("stopping: finishing the requests in flight") && server.log.contains("stopped"))
    }

    @Test("serve warns once of requests forwarded by a proxy it was not told to trust, and never of a trusted one")
    func forwardedWarning() throws {
        let folder = try CLI()
        defer { folder.remove() }
        let warning = "carry X-Forwarded-For, but no --trusted-proxy is set"
        for trusted in [false, true] {
            let server = try ServerProcess(
                database: folder.folder.appendingPathComponent("server-\(trusted).sqlite").path,
                extraArguments: trusted ? ["--trusted-proxy", "127.0.0.1"] : [])
            for _ in 0..<2 {
                let curl = Process()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                curl.arguments = [
                    "-s", "-o", "/dev/null", "-H", "X-Forwarded-For: 203.0.113.5",
                    "-H", "Content-Type: application/json",
                    "-d", #"{"user":"ana","password":"wrong horse","device":"d"}"#, server.url + "/v1/sessions",
                ]
                try curl.run()
                curl.waitUntilExit()
                #expect(curl.terminationStatus == 0)
            }
            #expect(server.stop() == 0)
            let said = server.log.components(separatedBy: warning).count - 1
            #expect(said == (trusted ? 0 : 1), "\(server.log)")
        }
    }

    @Test("serve stops on SIGTERM within seconds while a device listens for news (sync --watch)")
    func stopsWhileDevicesListen() throws {
        let admin = try CLI()
        defer { admin.remove() }
        let database = admin.folder.appendingPathComponent("server.sqlite").path
        _ = try admin.runProcess(
            ["admin", "--database", database, "user", "add", "ana", "--password-stdin"], store: false,
            input: "correct horse\n")
        let server = try ServerProcess(database: database)
        let laptop = try CLI()
        defer { laptop.remove() }
        #expect(
            try laptop.runProcess(["login", server.url, "--user", "ana", "--password-stdin"], input: "correct horse\n")
                .status == 0)
        // A device waiting for news holds a request open for as long as it runs.
        let watcher = Process()
        watcher.executableURL = try CLI.builtBinary()
        watcher.arguments = ["--store", laptop.storePath, "sync", "--watch"]
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        try server.waitForMetric("cardbox_event_streams 1")

        let start = Date()
        server.process.terminate()
        while server.process.isRunning && Date().timeIntervalSince(start) < 15 { Thread.sleep(forTimeInterval: 0.05) }
        let stopped = !server.process.isRunning
        if !stopped { kill(server.process.processIdentifier, SIGKILL) }
        #expect(stopped, "cardbox serve was still running 15 s after SIGTERM")
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test("two servers on one PostgreSQL serve one account: devices syncing through either converge")
    func twoServersOnePostgres() throws {
        let database = try TestPostgres.url
        let name = "ana-\(UUID().uuidString.prefix(8))"
        let admin = try CLI()
        defer { admin.remove() }
        let added = try admin.runProcess(
            ["admin", "--database", database, "user", "add", name, "--password-stdin", "--plan", "premium"],
            store: false, input: "correct horse\n")
        #expect(added.status == 0, "\(added.stderr)")
        let first = try ServerProcess(database: database)
        let second = try ServerProcess(database: database)
        let phone = try CLI()
        let laptop = try CLI()
        defer {
            phone.remove()
            laptop.remove()
        }
        for (device, server) in [(phone, first), (laptop, second)] {
            let login = try device.runProcess(
                ["login", server.url, "--user", name, "--password-stdin"], input: "correct horse\n")
            #expect(login.status == 0, "\(login.stderr)")
        }
        #expect(try phone.runProcess(["deck", "create", "Spanish", "--front", "es", "--back", "en"]).status == 0)
        #expect(try laptop.runProcess(["list", "create", "Groceries"]).status == 0)
        for device in [phone, laptop, phone] { #expect(try device.runProcess(["sync"]).status == 0) }
        for command in [["deck", "list", "--json"], ["list", "list", "--json"]] {
            #expect(try phone.runProcess(command).stdout == laptop.runProcess(command).stdout)
        }
        #expect(try laptop.runProcess(["deck", "list"]).stdout.contains("Spanish"))
        #expect(first.stop() == 0 && second.stop() == 0)
    }
}
