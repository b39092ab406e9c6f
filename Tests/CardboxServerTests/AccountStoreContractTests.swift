import CardboxCore
import CardboxImaging
import CardboxServer
import Crypto
import Foundation
import Testing

@Suite("Accounts, devices and tokens")
struct AccountStoreContractTests {
    /// bcrypt's lowest cost: these tests check the rules, not resistance to guessing.
    let hasher = PasswordHasher(cost: 4)

    private func service(_ database: any ServerDatabase) -> AccountService {
        AccountService(store: database, hasher: hasher, throttle: SignInThrottle(allowed: 3))
    }

    private func uniqueName(_ base: String) -> String { "\(base)-\(UUID().uuidString.prefix(8))" }

    @Test("an account signs devices in with its password; each device gets its own token", arguments: SyncStates.all)
    func signIn(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let name = uniqueName("Ana")
            let account = try await accounts.addAccount(name: name, password: "correct horse")
            // Names are unique whatever their case.
            await #expect(throws: CardboxError.alreadyExists(kind: "account", name: name.uppercased())) {
                try await accounts.addAccount(name: name.uppercased(), password: "another password")
            }
            let phone = try await accounts.signIn(
                name: name.lowercased(), password: "correct horse", deviceName: "phone")
            let laptop = try await accounts.signIn(name: name, password: "correct horse", deviceName: "laptop")
            // A space typed around the name (a phone's autofill) is not part of it.
            _ = try await accounts.signIn(name: " \(name) ", password: "correct horse", deviceName: "tablet")
            #expect(phone.account.id == account.id && phone.account.name == name && phone.token != laptop.token)
            #expect(try await accounts.caller(token: phone.token)?.device.id == phone.device.id)
            #expect(try await accounts.caller(token: laptop.token)?.account.id == account.id)
            #expect(try await database.devices(account: account.id).map(\.name) == ["phone", "laptop", "tablet"])
            // A name no account can have (NUL, which PostgreSQL refuses in text, among it) is a wrong
            // name like any other; a device name with a control character is refused by name.
            for stranger in ["\(name)\u{0}", "a\u{0}", String(repeating: "é", count: 70)] {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await accounts.signIn(name: stranger, password: "correct horse", deviceName: "phone")
                }
            }
            await #expect {
                try await accounts.signIn(name: name, password: "correct horse", deviceName: "phone\u{0}")
            } throws: { error in
                guard case .invalid(let field, _)? = error as? CardboxError else { return false }
                return field == "device"
            }
            // A token is 256 random bits beside the ids; the database keeps only a hash of them.
            let secretBits = (phone.token.count - "cbx1.".count) * 6 - 32 * 8
            #expect(secretBits >= 256)
            // A forged token (right ids, wrong secret) and a revoked one name no caller.
            var forged = Array(phone.token)
            forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
            #expect(try await accounts.caller(token: String(forged)) == nil)
            // Characters outside base64url, or a cut token, name no caller either.
            for mangled in [
                phone.token + "+", phone.token.replacingOccurrences(of: "-", with: "/"),
                String(phone.token.dropLast(3)),
            ]
            where mangled != phone.token {
                #expect(try await accounts.caller(token: mangled) == nil)
            }
            #expect(try await accounts.caller(token: "cbx1.nonsense") == nil)
            #expect(try await database.revokeDevice(phone.device.id, account: account.id, now: Date()))
            #expect(try await accounts.caller(token: phone.token) == nil)
            #expect(try await accounts.caller(token: laptop.token) != nil)
            // A device of another account cannot be revoked through this one.
            #expect(try await !database.revokeDevice(laptop.device.id, account: UUID(), now: Date()))
        }
    }

    @Test(
        "a token's caller carries the account's sync cursor, read with it, and no other account's",
        arguments: SyncStates.all)
    func callerCursor(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let (ana, ben) = (uniqueName("Ana"), uniqueName("Ben"))
            let account = try await accounts.addAccount(name: ana, password: "correct horse")
            _ = try await accounts.addAccount(name: ben, password: "correct horse")
            let phone = try await accounts.signIn(name: ana, password: "correct horse", deviceName: "phone")
            let other = try await accounts.signIn(name: ben, password: "correct horse", deviceName: "phone")
            #expect(try await accounts.caller(token: phone.token)?.cursor == 0)
            let device = try Device(account: account.id)
            _ = try device.store.createList(name: "Groceries")
            let receipt = try await database.push(
                device.store.changes().changes, batch: UUID(), account: account.id, now: Date())
            #expect(receipt.cursor > 0)
            #expect(try await accounts.caller(token: phone.token)?.cursor == receipt.cursor)
            #expect(try await accounts.caller(token: other.token)?.cursor == 0)
        }
    }

    @Test(
        "a session unused past its idle limit ends; every other device signs out at once; a device is renamed",
        arguments: SyncStates.all)
    func sessionsEnd(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let name = uniqueName("Bo")
            let account = try await accounts.addAccount(name: name, password: "correct horse")
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let day: TimeInterval = 86_400
            func signIn(_ device: String) async throws -> SignIn {
                try await accounts.signIn(name: name, password: "correct horse", deviceName: device, now: start)
            }
            let (browser, laptop, phone) = (
                try await signIn("Chrome on Linux"), try await signIn("laptop"), try await signIn("phone")
            )
            // Used within the limit, a session slides on; unused past it, it ends for good.
            #expect(try await accounts.caller(token: browser.token, now: start + 29 * day, idleLimit: 30 * day) != nil)
            #expect(try await accounts.caller(token: browser.token, now: start + 58 * day, idleLimit: 30 * day) != nil)
            #expect(try await accounts.caller(token: browser.token, now: start + 89 * day, idleLimit: 30 * day) == nil)
            #expect(try await accounts.caller(token: browser.token, now: start + 89 * day) == nil)
            // A device token without the limit (the command line's) is not ended by idling.
            #expect(try await accounts.caller(token: laptop.token, now: start + 400 * day) != nil)
            try await accounts.renameDevice(laptop.device.id, account: account.id, name: "  Work laptop ")
            await #expect(throws: CardboxError.self) {
                try await accounts.renameDevice(laptop.device.id, account: account.id, name: "\u{7}")
            }
            await #expect(
                throws: CardboxError.notFound(kind: "device", reference: laptop.device.id.uuidString.lowercased())
            ) {
                try await accounts.renameDevice(laptop.device.id, account: UUID(), name: "mine")
            }
            let names = try await database.devices(account: account.id).map(\.name)
            #expect(names.sorted() == ["Chrome on Linux", "Work laptop", "phone"])
            #expect(try await database.revokeDevices(account: account.id, keeping: phone.device.id, now: start) == 1)
            #expect(try await accounts.caller(token: laptop.token) == nil)
            #expect(try await accounts.caller(token: phone.token) != nil)
            // Changing the password takes the current one, and keeps only the device that changed it.
            let other = try await signIn("tablet")
            await #expect(
                throws: CardboxError.invalid(field: "current password", reason: "is not this account's password")
            ) {
                try await accounts.changePassword(
                    of: account, current: "wrong horse", new: "new horse 1", keeping: phone.device.id)
            }
            try await accounts.changePassword(
                of: account, current: "correct horse", new: "new horse 1", keeping: phone.device.id)
            #expect(try await accounts.caller(token: other.token) == nil)
            #expect(try await accounts.caller(token: phone.token) != nil)
        }
    }

    @Test("wrong passwords are refused alike, and repeated failures must wait", arguments: SyncStates.all)
    func throttled(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let name = uniqueName("Ben")
            _ = try await accounts.addAccount(name: name, password: "right password")
            let now = Date()
            for password in ["wrong one", "wrong two", "wrong three"] {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await accounts.signIn(name: name, password: password, deviceName: "d", now: now)
                }
            }
            await #expect(throws: AccountService.wrongCredentials) {
                try await accounts.signIn(name: "nobody-\(name)", password: "right password", deviceName: "d", now: now)
            }
            // The third failure locks the name for a second; even the right password waits.
            await #expect(throws: SignInThrottled(retryAfter: 1)) {
                try await accounts.signIn(name: name, password: "right password", deviceName: "d", now: now)
            }
            let later = now.addingTimeInterval(2)
            _ = try await accounts.signIn(name: name, password: "right password", deviceName: "d", now: later)
        }
    }

    @Test("passwords are checked for length, changed, and plans set", arguments: SyncStates.all)
    func passwordAndPlan(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let name = uniqueName("Cy")
            await #expect(throws: CardboxError.self) { try await accounts.addAccount(name: name, password: "short") }
            await #expect(throws: CardboxError.self) {
                try await accounts.addAccount(name: "has space", password: "long enough")
            }
            // bcrypt reads 72 bytes: longer passwords still count whole.
            let long = String(repeating: "ñ", count: 40) + "tail one"
            let longAccount = try await accounts.addAccount(name: name + "-long", password: long)
            await #expect(throws: AccountService.wrongCredentials) {
                try await accounts.signIn(
                    name: longAccount.name, password: String(long.dropLast()) + "two", deviceName: "d")
            }
            _ = try await accounts.signIn(name: longAccount.name, password: long, deviceName: "d")
            let account = try await accounts.addAccount(name: name, password: "first password")
            let before = try await accounts.signIn(name: name, password: "first password", deviceName: "old")
            try await accounts.setPassword("second password", account: account.id)
            await #expect(throws: AccountService.wrongCredentials) {
                try await accounts.signIn(name: name, password: "first password", deviceName: "d")
            }
            // A new password signs out every device that held an old token; from a device (a
            // browser's account page), every other one.
            #expect(try await accounts.caller(token: before.token) == nil)
            let kept = try await accounts.signIn(name: name, password: "second password", deviceName: "d")
            let other = try await accounts.signIn(name: name, password: "second password", deviceName: "e")
            try await accounts.setPassword("third password", account: account.id, keeping: kept.device.id)
            #expect(try await accounts.caller(token: kept.token) != nil)
            #expect(try await accounts.caller(token: other.token) == nil)
            await #expect(throws: CardboxError.self) {
                try await accounts.setPassword("fourth password", account: UUID())
            }
            #expect(try await accounts.caller(token: kept.token) != nil)
            try await database.setPlan(.premium, account: account.id)
            #expect(try await database.account(account.id)?.plan == .premium)
            #expect(try await database.accounts().contains { $0.id == account.id && $0.plan == .premium })
            await #expect(throws: CardboxError.self) { try await database.setPlan(.free, account: UUID()) }
        }
    }

    @Test(
        "a device's sync status: its last sync, how far it pulled, and a refusal until a push goes through",
        arguments: SyncStates.all)
    func syncStatus(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let account = try await accounts.addAccount(name: uniqueName("Fay"), password: "correct horse")
            let phone = try await accounts.signIn(name: account.name, password: "correct horse", deviceName: "phone")
            #expect(try await database.syncStatus(account: account.id).isEmpty)
            let first = Date(timeIntervalSince1970: 1_790_000_000)
            try await database.recordSync(
                device: phone.device.id, account: account.id, pulledTo: 7, refusal: .some(nil), now: first)
            let refusedAt = first.addingTimeInterval(60)
            try await database.recordSync(
                device: phone.device.id, account: account.id, pulledTo: nil, refusal: .some("Card limit exceeded."),
                now: refusedAt)
            // A pull alone keeps the refusal and the cursor it reached last.
            try await database.recordSync(
                device: phone.device.id, account: account.id, pulledTo: nil, refusal: nil,
                now: refusedAt.addingTimeInterval(5))
            var status = try #require(try await database.syncStatus(account: account.id)[phone.device.id])
            #expect(status.pulledCursor == 7 && status.lastError == "Card limit exceeded.")
            #expect(status.lastErrorAt == refusedAt && status.lastSyncAt == refusedAt.addingTimeInterval(5))
            try await database.recordSync(
                device: phone.device.id, account: account.id, pulledTo: 9, refusal: .some(nil),
                now: refusedAt.addingTimeInterval(10))
            status = try #require(try await database.syncStatus(account: account.id)[phone.device.id])
            #expect(status.pulledCursor == 9 && status.lastError == nil && status.lastErrorAt == nil)
            // A note that lands late (an older sync's) changes nothing.
            try await database.recordSync(
                device: phone.device.id, account: account.id, pulledTo: 8, refusal: .some("late"), now: first)
            #expect(try await database.syncStatus(account: account.id)[phone.device.id] == status)
            // Another account sees none of it; removing the account removes it.
            #expect(try await database.syncStatus(account: UUID()).isEmpty)
            try await database.removeAccount(account.id)
            #expect(try await database.syncStatus(account: account.id).isEmpty)
        }
    }

    @Test("removing an account removes its devices and sync state, and only its own", arguments: SyncStates.all)
    func remove(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = service(database)
            let leaving = try await accounts.addAccount(name: uniqueName("Dee"), password: "password one")
            let staying = try await accounts.addAccount(name: uniqueName("Eve"), password: "password two")
            var tokens: [String] = []
            for account in [leaving, staying] {
                let device = try Device(account: account.id)
                _ = try device.store.createDeck(name: "Deck", frontLanguage: "es", backLanguage: "en")
                try await device.sync(with: database, account: account.id)
                tokens.append(
                    try await accounts.signIn(
                        name: account.name, password: account.id == leaving.id ? "password one" : "password two",
                        deviceName: "d"
                    ).token)
            }
            try await database.removeAccount(leaving.id)
            #expect(try await database.account(leaving.id) == nil)
            #expect(try await database.account(named: leaving.name) == nil)
            #expect(try await accounts.caller(token: tokens[0]) == nil)
            #expect(try await database.pull(account: leaving.id, after: 0, limit: 100).changes.isEmpty)
            #expect(try await accounts.caller(token: tokens[1]) != nil)
            #expect(try await !database.pull(account: staying.id, after: 0, limit: 100).changes.isEmpty)
            // The name can be taken again.
            _ = try await accounts.addAccount(name: leaving.name, password: "password three")
        }
    }
}

@Suite("Images on the server")
struct ImageStoreContractTests {
    static let png = try! ImageIngest.sample(width: 12, height: 9, seed: 7, format: .png)

    static func hash(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test("images are kept once per account by SHA-256, and checked by seed 002's rules", arguments: SyncStates.all)
    func images(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let account = UUID()
            let other = UUID()
            let hash = Self.hash(Self.png)
            #expect(try await database.missingImages([hash], account: account) == [hash])
            let image = try CheckedImage(Self.png, sha256: hash)
            try await database.putImage(image, account: account)
            try await database.putImage(image, account: account)
            #expect(try await database.image(hash, account: account) == image)
            #expect(try await database.missingImages([hash], account: account).isEmpty)
            // Another account has its own images.
            #expect(try await database.image(hash, account: other) == nil)
            #expect(try await database.missingImages([hash], account: other) == [hash])
            // Not an image, another hash, too large: refused before anything is stored.
            let text = Data("not an image".utf8)
            #expect(throws: CardboxError.self) { try CheckedImage(text, sha256: Self.hash(text)) }
            #expect(throws: CardboxError.self) { try CheckedImage(Self.png, sha256: String(repeating: "0", count: 64)) }
            let huge = Self.png + Data(count: Limits.imageBytes)
            #expect(throws: CardboxError.self) { try CheckedImage(huge, sha256: Self.hash(huge)) }
            #expect(throws: CardboxError.self) { try CheckedImage.checkHash("../etc/passwd") }
        }
    }
}
