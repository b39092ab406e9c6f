import CardboxCore
import CardboxSync
import Foundation

// The sync API's bodies (openapi.yaml documents each), as the server writes them and a device's
// client reads them.

/// `POST /v1/accounts`'s body, where sign-up is open.
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// `POST /v1/sessions`'s body: a device signing in.
public struct SignInRequest: Codable, Sendable, Equatable {
    public var user: String
    public var password: String
    /// The device's name, shown on the account page.
    public var device: String

    public init(user: String, password: String, device: String) {
        self.user = user
        self.password = password
        self.device = device
    }
}

/// An account as answers show it.
public struct WireAccount: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var plan: Plan
    public var createdAt: Date

    public init(id: UUID, name: String, plan: Plan, createdAt: Date) {
        self.id = id
        self.name = name
        self.plan = plan
        self.createdAt = createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireText, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(plan, forKey: .plan)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// A device (a signed-in client) as answers show it.
public struct WireDevice: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var createdAt: Date
    public var lastSeenAt: Date?
    /// When it was signed out; its token no longer works.
    public var revokedAt: Date?

    public init(id: UUID, name: String, createdAt: Date, lastSeenAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.revokedAt = revokedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireText, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(lastSeenAt, forKey: .lastSeenAt)
        try container.encodeIfPresent(revokedAt, forKey: .revokedAt)
    }
}

/// `POST /v1/sessions`'s answer: the device's bearer token, its account and itself.
public struct SessionReply: Codable, Sendable, Equatable {
    public var token: String
    public var account: WireAccount
    public var device: WireDevice

    public init(token: String, account: WireAccount, device: WireDevice) {
        self.token = token
        self.account = account
        self.device = device
    }
}

/// `GET /v1/account` (the caller's account and device) and `POST /v1/accounts` (the account made).
public struct AccountReply: Codable, Sendable, Equatable {
    public var account: WireAccount
    public var device: WireDevice?

    public init(account: WireAccount, device: WireDevice? = nil) {
        self.account = account
        self.device = device
    }
}

/// Every refusal's body: the server's own sentence.
public struct ErrorReply: Codable, Sendable, Equatable {
    public var error: String

    public init(error: String) { self.error = error }
}

/// `GET /health`.
public struct HealthReply: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String) { self.status = status }
}

/// `POST /v1/images/missing`'s body: image hashes (at most `MissingImagesRequest.most`).
public struct MissingImagesRequest: Codable, Sendable, Equatable {
    public var sha256: [String]
    public static let most = 10_000

    public init(sha256: [String]) { self.sha256 = sha256 }
}

/// `POST /v1/images/missing`'s answer: the hashes the server has no bytes for.
public struct MissingImagesReply: Codable, Sendable, Equatable {
    public var missing: [String]

    public init(missing: [String]) { self.missing = missing }
}

/// `PUT /v1/images/SHA256`'s answer: the image kept.
public struct StoredImageReply: Codable, Sendable, Equatable {
    public var sha256: String
    public var mimeType: String
    public var byteCount: Int

    public init(sha256: String, mimeType: String, byteCount: Int) {
        self.sha256 = sha256
        self.mimeType = mimeType
        self.byteCount = byteCount
    }
}

/// One event of `GET /v1/sync/events`: the account's cursor moved.
public struct NewsEvent: Codable, Sendable, Equatable {
    public var cursor: Int64

    public init(cursor: Int64) { self.cursor = cursor }
}

extension PushReceipt: Codable {
    private enum CodingKeys: String, CodingKey {
        case cursor, previousCursor
        case wasRetry = "retry"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            cursor: try container.decode(Int64.self, forKey: .cursor),
            wasRetry: try container.decode(Bool.self, forKey: .wasRetry),
            previousCursor: try container.decodeIfPresent(Int64.self, forKey: .previousCursor))
    }

    /// `previousCursor` is written as `null` when there is none: the document requires the member.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(wasRetry, forKey: .wasRetry)
        try container.encode(previousCursor, forKey: .previousCursor)
    }
}

/// `GET /v1/sync/pull` and `POST /v1/sync/exchange`'s answer: a page of the pull, with the
/// account's plan and, for an exchange, the push's receipt. Written and read by hand, not by the
/// coders (see `WireCoding`): `{"changes":…,"cursor":N,"hasMore":B,"plan":"free"}`, and for an
/// exchange `"pushed":N,"retry":B` too.
public struct PullReply: Sendable, Equatable {
    public var page: PullPage
    /// The push an exchange made before the pull (its `previousCursor` is not sent).
    public var pushed: PushReceipt?

    public init(page: PullPage, pushed: PushReceipt? = nil) {
        self.page = page
        self.pushed = pushed
    }

    /// The answer's text; keys in sorted order, as every answer writes them.
    public var text: String {
        var members = [#""changes":\#(page.changes.jsonText)"#, #""cursor":\#(page.cursor)"#]
        members.append(#""hasMore":\#(page.hasMore)"#)
        if let plan = page.plan { members.append(#""plan":\#(JSONValue.string(plan.rawValue).jsonText)"#) }
        if let pushed { members.append(#""pushed":\#(pushed.cursor)"#) }
        if let pushed { members.append(#""retry":\#(pushed.wasRetry)"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// An answer whose envelope (`changes`, `cursor`, `hasMore`) is not a pull page's.
    public struct Malformed: Error, Equatable {
        public var member: String
        public init(member: String) { self.member = member }
    }

    /// Reads an answer. An envelope that is not a page's is `Malformed`; a change set this Cardbox
    /// cannot read is its own error, which says why (`registry: 2 is not known to this Cardbox`).
    public init(text: String) throws {
        guard case .object(let members)? = try? JSONValue.parse(text, field: "answer") else {
            throw Malformed(member: "answer")
        }
        guard let changes = members["changes"] else { throw Malformed(member: "changes") }
        guard case .int(let cursor)? = members["cursor"] else { throw Malformed(member: "cursor") }
        guard case .bool(let hasMore)? = members["hasMore"] else { throw Malformed(member: "hasMore") }
        let plan: Plan? = if case .string(let name)? = members["plan"] { Plan(rawValue: name) } else { nil }
        page = PullPage(changes: try ChangeSet(json: changes), cursor: cursor, hasMore: hasMore, plan: plan)
        if case .int(let cursor)? = members["pushed"] {
            pushed = PushReceipt(cursor: cursor, wasRetry: members["retry"] == .bool(true))
        }
    }
}

extension UUID {
    /// An id as the wire writes it: lowercase.
    var wireText: String { uuidString.lowercased() }
}
