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
    /// What the last form did, said above the page ("Password changed…").
    let notice: String?
    let planText: String
    /// Whether the account is on the free plan (the page says how to lift its limit).
    let free: Bool
    /// Whether the account administers the server (it sets plans on the Users page).
    let isAdministrator: Bool
    /// The devices signed in (revoked ones are gone from the list), this browser among them.
    let devices: [Device]
    /// Whether another device is signed in (the page offers to sign them all out).
    let hasOthers: Bool
}

/// The account page, its devices, and the live news pages follow.
extension WebApp {
    func addAccountRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("account") { request, context in
            try await accountPage(context, changed: request.uri.queryParameters["changed"].map(String.init))
        }
        pages.get("events") { request, context in
            let caller = try context.pageCaller()
            let token = context.sessionToken ?? ""
            return NewsStream(database: database, news: news, pollInterval: options.newsPollInterval).response(
                account: caller.account.id, device: caller.device.id,
                after: try request.integerQuery("after", default: 0),
                stillSignedIn: { [accounts] in try await accounts.caller(token: token) != nil })
        }
        pages.post("account/password") { request, context in
            let caller = try context.pageCaller()
            let form = context.formFields
            do {
                guard form["new"] == form["repeat"] else {
                    throw CardboxError.invalid(field: "new password", reason: "the two new passwords differ")
                }
                try await accounts.changePassword(
                    of: caller.account, current: form["current"] ?? "", new: form["new"] ?? "",
                    keeping: caller.device.id, client: context.clientAddress(request, trusting: options.trustedProxies),
                    now: options.now())
            } catch let error as CardboxError {
                return try await accountPage(context, error: WebPage.message(error))
            }
            await news.signedOut(caller.account.id)
            return WebPage.redirect("/account?changed=password")
        }
        pages.post("account/devices/sign-out-others") { _, context in
            let caller = try context.pageCaller()
            _ = try await database.revokeDevices(
                account: caller.account.id, keeping: caller.device.id, now: options.now())
            await news.signedOut(caller.account.id)
            return WebPage.redirect("/account?changed=devices")
        }
        pages.post("account/devices/:device/rename") { _, context in
            let caller = try context.pageCaller()
            let device = try Self.uuid(context, "device")
            do {
                try await accounts.renameDevice(
                    device, account: caller.account.id, name: context.formFields["name"] ?? "")
            } catch let error as CardboxError {
                if case .notFound = error { throw error }
                return try await accountPage(context, error: WebPage.message(error))
            }
            return WebPage.redirect("/account")
        }
        pages.post("account/devices/:device/revoke") { _, context in
            let caller = try context.pageCaller()
            let device = try Self.uuid(context, "device")
            guard try await database.revokeDevice(device, account: caller.account.id, now: options.now()) else {
                throw CardboxError.notFound(kind: "device", reference: context.parameters.get("device") ?? "")
            }
            await news.signedOut(caller.account.id)
            return WebPage.redirect("/account")
        }
    }

    /// What the account page says after a form that changed something (`?changed=…`).
    static let changes = [
        "password": "Password changed. Every other device and browser of the account is signed out.",
        "devices": "Every other device and browser of the account is signed out.",
    ]

    /// The account page; `changed` names what a form just changed, `error` why one was refused.
    private func accountPage(_ context: CardboxRequestContext, changed: String? = nil, error: String? = nil)
        async throws -> Response
    {
        let caller = try context.pageCaller()
        let devices = try await database.devices(account: caller.account.id)
        let syncs = try await database.syncStatus(account: caller.account.id)
        let allowance = try await actions.allowance(caller)
        let zone = try await actions.timeZone(caller)
        let signedIn = devices.filter { $0.revokedAt == nil }
        let page = AccountPage(
            account: .init(name: caller.account.name),
            notice: changed.flatMap { Self.changes[$0] },
            planText: allowance.cardLimit.map { "Free plan: \(allowance.cardCount) of \($0) cards used." }
                ?? "Premium plan: unlimited cards (\(allowance.cardCount) so far).",
            free: allowance.cardLimit != nil, isAdministrator: caller.account.isAdministrator,
            devices: signedIn.map { device in
                AccountPage.Device(
                    id: device.id.uuidString.lowercased(), name: device.name, current: device.id == caller.device.id,
                    lastSeen: device.lastSeenAt.map { PageText.time($0, zone) } ?? "never",
                    sync: syncs[device.id].map { AccountPage.Sync($0, cursor: caller.cursor, zone: zone) })
            }, hasOthers: signedIn.contains { $0.id != caller.device.id })
        return WebPage.html(
            .account, title: "Account", page, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: caller.cursor)
    }
}
