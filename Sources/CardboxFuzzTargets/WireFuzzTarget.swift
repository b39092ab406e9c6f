import CardboxCore
import CardboxSync
import Foundation

extension FuzzTargets {
    /// A change set's text, or a pull page's, read straight (`WireChanges.read(text:schema:)`, the
    /// browser's fast way) and read as a JSON tree (`WireChanges(json:schema:)`, which names every
    /// problem): whatever the straight reader reads, the tree reads the same, with the same page
    /// cursor. Text the straight reader declines is only read the slow way. The server's reading
    /// (`ChangeSet.readStraight`) agrees with `ChangeSet(json:)`, and each row's stored form
    /// (`recordJSON`) reads back straight as it does as a tree.
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
                    && tree.registry == straight.changes.registry && tree.rows == straight.changes.rows
                    && tree.tombstones == straight.changes.tombstones,
                "\(text.debugDescription): read straight, it differs from its tree")
        } catch {
            preconditionFailure("\(text.debugDescription): read straight, but the tree refuses it: \(error)")
        }
        if let fast = ChangeSet.readStraight(text) {
            precondition(
                (try? ChangeSet(json: changes)) == fast, "\(text.debugDescription): the server's two readings differ")
            for row in fast.rows {
                let stored = row.recordJSON
                let straightRow = RowChange(recordText: stored)
                precondition(
                    straightRow == row && (try? RowChange.recordFromTree(stored, field: "fuzz")) == row,
                    "\(stored.debugDescription): a stored row does not read back as it was")
            }
        }
    }
}
