import CardboxCore
import CardboxServer
import Foundation
import Hummingbird

/// The account page: its plan, and its devices with their last sync.
struct AccountPage: Encodable {
    struct Account: Encodable {
        let name: String
    }

    struct Device: Encodable {
        let id: String
        let name: String
        /// Whether it is the browser looking at the page.
        let current: Bool
        let revoked: Bool
        let lastSeen: String
        let sync: Sync?
    }

    /// A device's last sync: when, whether changes made since wait for it, and why its last push
    /// was refused, if it was.
    struct Sync: Encodable {
        let last: String
        let upToDate: Bool
        /// Why its last push was refused, if it was.
        let refusal: String?
        let errorAt: String

        init(_ sync: DeviceSyncStatus, cursor: Int64, zone: TimeZone) {
            last = PageText.time(sync.lastSyncAt, zone)
            upToDate = (sync.pulledCursor ?? -1) >= cursor
            refusal = sync.lastError
            errorAt = sync.lastErrorAt.map { PageText.time($0, zone) } ?? ""
        }
    }

    let account: Account
    let planText: String
    /// Whether the account is on the free plan (the page says how to lift its limit).
    let free: Bool
    let devices: [Device]
}

/// The account page, its devices, and the live news pages follow.
extension WebApp {
    func addAccountRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("account") { _, context in try await accountPage(context) }
        pages.get("events") { request, context in
            let caller = try context.pageCaller()
            let token = context.sessionToken ?? ""
            return NewsStream(database: database, news: news, pollInterval: options.newsPollInterval).response(
                account: caller.account.id, after: try request.integerQuery("after", default: 0),
                stillSignedIn: { [accounts] in try await accounts.caller(token: token) != nil })
        }
        pages.post("account/devices/:device/revoke") { _, context in
            let caller = try context.pageCaller()
            guard let device = context.parameters.get("device").flatMap(UUID.init(uuidString:)),
                try await database.revokeDevice(device, account: caller.account.id, now: options.now())
            else { throw CardboxError.notFound(kind: "device", reference: context.parameters.get("device") ?? "") }
            await news.signedOut(caller.account.id)
            return WebPage.redirect("/account")
        }
    }

    private func accountPage(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let devices = try await database.devices(account: caller.account.id)
        let syncs = try await database.syncStatus(account: caller.account.id)
        let allowance = try await actions.allowance(caller)
        let zone = try await actions.timeZone(caller)
        let page = AccountPage(
            account: .init(name: caller.account.name),
            planText: allowance.cardLimit.map { "Free plan: \(allowance.cardCount) of \($0) cards used." }
                ?? "Premium plan: unlimited cards (\(allowance.cardCount) so far).",
            free: allowance.cardLimit != nil,
            devices: devices.map { device in
                AccountPage.Device(
                    id: device.id.uuidString.lowercased(), name: device.name, current: device.id == caller.device.id,
                    revoked: device.revokedAt != nil,
                    lastSeen: device.lastSeenAt.map { PageText.time($0, zone) } ?? "never",
                    sync: syncs[device.id].map { AccountPage.Sync($0, cursor: caller.cursor, zone: zone) })
            })
        return WebPage.html(.account, title: "Account", page, context: context, live: caller.cursor)
    }
}
