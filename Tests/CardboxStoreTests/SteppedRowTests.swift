import GRDB
import Testing

@testable import CardboxStore

@Suite("Rows read by position")
struct SteppedRowTests {
    @Test("a stepped row reads what GRDB's row reads, NULL as nil, in order")
    func readsLikeRow() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (a INTEGER, b TEXT, c REAL, d BLOB);
                    INSERT INTO t VALUES (1, 'x', 1.5, x'01'), (NULL, NULL, NULL, NULL), (-7, '', 0, x'');
                    """)
            let sql = "SELECT a, b, c, d FROM t WHERE a IS NOT ? ORDER BY rowid"
            let values = { (row: any PositionalRow) in (0..<4).map { row[$0] as DatabaseValue } }
            let stepped = try db.cachedStatement(sql: sql).records([5], values)
            let fetched = try Row.fetchAll(db, sql: sql, arguments: [5]).map(values)
            #expect(stepped == fetched && stepped.count == 3)
            let typed = try db.cachedStatement(sql: sql).records([5]) { ($0[0] as Int?, $0[1] as String?) }
            #expect(typed.map(\.0) == [1, nil, -7] && typed.map(\.1) == ["x", nil, ""])
        }
    }

    @Test("an error while stepping is thrown, and the statement runs again after it")
    func errorThenAgain() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT abs(?)")
            #expect(throws: DatabaseError.self) { try statement.records([Int64.min]) { $0[0] as Int64 } }
            #expect(try statement.records([-5]) { $0[0] as Int64 } == [5])
        }
    }
}
