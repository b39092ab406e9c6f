import Foundation

/// What one server tells the others sharing its database, so that the devices listening on them
/// hear it at once instead of at their next poll.
public enum ServerNews: Sendable, Equatable {
    /// The account's sync state moved: its devices are told to pull.
    case changed(account: UUID)
    /// A device or session of the account was signed out: its event streams check their tokens.
    case signedOut(account: UUID)

    /// The news as one line, with the server that sent it (`origin`), which ignores its own.
    public func payload(origin: UUID) -> String {
        switch self {
        case .changed(let account): "\(origin.uuidString.lowercased()) changed \(account.uuidString.lowercased())"
        case .signedOut(let account): "\(origin.uuidString.lowercased()) signed-out \(account.uuidString.lowercased())"
        }
    }

    /// Reads a payload; nil when it is not one, or when it is `origin`'s own.
    public init?(payload: String, ignoring origin: UUID) {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, let sender = UUID(uuidString: String(parts[0])), sender != origin,
            let account = UUID(uuidString: String(parts[2]))
        else { return nil }
        switch parts[1] {
        case "changed": self = .changed(account: account)
        case "signed-out": self = .signedOut(account: account)
        default: return nil
        }
    }
}

/// Carries `ServerNews` between the servers sharing a database. Without one (a SQLite file), a
/// server sees another's pushes by polling; with one, polling stays as the fallback.
public protocol ServerNewsChannel: Sendable {
    /// Tells every other server. A failure is only logged: they poll as well.
    func announce(_ news: ServerNews) async
    /// Hears what the other servers announce until cancelled or the connection fails (thrown).
    func listen(_ heard: @escaping @Sendable (ServerNews) async -> Void) async throws
}
