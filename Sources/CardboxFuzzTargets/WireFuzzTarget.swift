import CardboxCore
import CardboxSync
import Foundation

extension FuzzTargets {
    /// A change set's text, or a pull page's, read straight (`WireChanges.read(text:schema:)`, the
    /// browser's fast way) and read as a JSON tree (`WireChanges(json:schema:)`, which names every
    /// problem): whatever the straight reader reads, the tree reads the same, with the same page
    /// cursor. Text the straight reader declines is only read the slow way.
    static func wire(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let schema = SyncRegistry.replicaSchema
        guard let straight = WireChanges.read(text: text, schema: schema) else { return }
        guard case .object(let root)? = try? JSONParser.parse(text) else {
            preconditionFailure("\(text.debugDescription): read straight, but it is not a JSON object")
        }
        var changes = JSONValue.object(root)
        if let page = straight.page {
            guard let nested = root["changes"] else { preconditionFailure("a page without changes was read") }
            precondition(
                root["cursor"] == .int(page.cursor) && root["hasMore"] == .bool(page.hasMore),
                "\(text.debugDescription): the page's cursor or hasMore differ")
            changes = nested
        } else {
            precondition(root["changes"] == nil, "\(text.debugDescription): a page was read as a change set")
        }
        do throws(WireProblem) {
            let tree = try WireChanges(json: changes, schema: schema)
            precondition(
                tree.accountId == straight.changes.accountId && tree.replicaId == straight.changes.replicaId
                    && tree.rows == straight.changes.rows && tree.tombstones == straight.changes.tombstones,
                "\(text.debugDescription): read straight, it differs from its tree")
        } catch {
            preconditionFailure("\(text.debugDescription): read straight, but the tree refuses it: \(error)")
        }
    }
}
