import CardboxCore
import CardboxServer
import Foundation
import Hummingbird

/// The administrator's Users page: every account of the server with its plan and devices, a form
/// to add one, a plan to set and a device to sign out. What `cardbox admin user` does on the
/// server's machine, for the person who set the server up.
struct UsersPage: Encodable {
    struct User: Encodable {
        let id: String
        let name: String
        let isYou: Bool
        let isAdministrator: Bool
        let plans: [Choice]
        let since: String
        let devices: [Device]
        let hasDevices: Bool
    }

    struct Choice: Encodable {
        let plan: String
        let selected: Bool
    }

    struct Device: Encodable {
        let accountId: String
        let id: String
        let name: String
        let lastSeen: String
    }

    let notice: String?
    let users: [User]
    let plans: [String]
}

extension WebApp {
    func addUserRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("users") { request, context in
            try await usersPage(context, changed: request.uri.queryParameters["changed"].map(String.init))
        }
        pages.post("users") { _, context in
            try await administering(context) { form in
                _ = try await accounts.addAccount(
                    name: form["name"] ?? "", password: form["password"] ?? "",
                    plan: try Plan.validate(form["plan"] ?? ""), now: options.now())
                return "added"
            }
        }
        pages.post("users/:account/plan") { _, context in
            try await administering(context) { form in
                try await database.setPlan(
                    try Plan.validate(form["plan"] ?? ""), account: try Self.uuid(context, "account"))
                return "plan"
            }
        }
        pages.post("users/:account/devices/:device/revoke") { _, context in
            try await administering(context) { _ in
                let account = try Self.uuid(context, "account")
                let device = try Self.uuid(context, "device")
                guard try await database.revokeDevice(device, account: account, now: options.now()) else {
                    throw CardboxError.notFound(kind: "device", reference: context.parameters.get("device") ?? "")
                }
                await news.signedOut(account)
                return "device"
            }
        }
    }

    /// What the Users page says after a form changed something (`?changed=…`).
    static let userChanges = [
        "added": "Account added: its owner signs in with the name and password you chose.",
        "plan": "Plan set: the account's pages and devices follow it now.",
        "device": "Device signed out.",
    ]

    /// The caller, when it is the server's administrator; anyone else is told the page is not theirs.
    private func administrator(_ context: CardboxRequestContext) throws -> Caller {
        let caller = try context.pageCaller()
        guard caller.account.isAdministrator else {
            throw APIError(.forbidden, "only the administrator of this server sees its users")
        }
        return caller
    }

    /// A change only the administrator may make: back to the Users page saying what changed, or the
    /// page with the refusal.
    private func administering(
        _ context: CardboxRequestContext, _ body: ([String: String]) async throws -> String
    ) async throws -> Response {
        _ = try administrator(context)
        do {
            return WebPage.redirect("/users?changed=\(try await body(context.formFields))")
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            return try await usersPage(context, error: WebPage.message(error))
        }
    }

    private func usersPage(_ context: CardboxRequestContext, changed: String? = nil, error: String? = nil)
        async throws -> Response
    {
        let caller = try administrator(context)
        let zone = try await actions.timeZone(caller)
        var users: [UsersPage.User] = []
        for account in try await database.accounts() {
            let devices = try await database.devices(account: account.id).filter { $0.revokedAt == nil }
            users.append(
                UsersPage.User(
                    id: account.id.uuidString.lowercased(), name: account.name, isYou: account.id == caller.account.id,
                    isAdministrator: account.isAdministrator,
                    plans: Plan.allCases.map { .init(plan: $0.rawValue, selected: $0 == account.plan) },
                    since: PageText.time(account.createdAt, zone),
                    devices: devices.map {
                        .init(
                            accountId: account.id.uuidString.lowercased(), id: $0.id.uuidString.lowercased(),
                            name: $0.name, lastSeen: $0.lastSeenAt.map { PageText.time($0, zone) } ?? "never")
                    }, hasDevices: !devices.isEmpty))
        }
        let page = UsersPage(
            notice: changed.flatMap { Self.userChanges[$0] }, users: users, plans: Plan.allCases.map(\.rawValue))
        return WebPage.html(
            .users, title: "Users", page, context: context, error: error, status: error == nil ? .ok : .badRequest)
    }
}
