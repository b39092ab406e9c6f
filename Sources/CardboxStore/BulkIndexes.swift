import GRDB

/// Indexes made after a bulk insert instead of during it.
///
/// An index kept up to date row by row takes each new entry where its value sorts: for an index
/// whose order is not the order rows arrive in (a card's front, a tag link's tag), every insert
/// touches a page somewhere in the tree, and pages split half full. `CREATE INDEX` sorts the rows
/// once and writes full pages. When a write adds at least as many rows as a table holds, dropping
/// the table's secondary indexes first and making them again after is both faster and smaller
/// (docs/performance.md § Store size). Inside the write's transaction, so a failed import leaves
/// the indexes as they were, and readers never see a table without them.
extension WriteContext {
    /// Fewer rows than this are inserted with the indexes in place: rebuilding costs a sort of the
    /// whole table, which only a large insert repays.
    static let bulkInsertThreshold = 10_000

    /// Runs `insert`, which adds `count` rows to the first of `tables` (and rows that belong to
    /// them to the others: a card's tag links), with the tables' secondary indexes (every index with
    /// SQL: not the ones a primary key or `UNIQUE` makes, which the insert's own lookups use) made
    /// after it when the insert is large and the first table holds no more rows than it adds. What
    /// `insert` reads must not need those indexes.
    func withIndexesMadeAfter<Result>(
        _ tables: [String], inserting count: Int, _ insert: () throws -> Result
    ) throws -> Result {
        guard let first = tables.first, count >= Self.bulkInsertThreshold,
            try Int.fetchOne(context.db, sql: "SELECT COALESCE(MAX(rowid), 0) FROM \"\(first)\"") ?? 0 <= count
        else { return try insert() }
        let marks = databaseQuestionMarks(count: tables.count)
        let indexes = try Row.fetchAll(
            context.db,
            sql:
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(marks))",
            arguments: StatementArguments(tables)
        ).map { (name: $0["name"] as String, sql: $0["sql"] as String) }
        for index in indexes { try context.db.execute(sql: "DROP INDEX \"\(index.name)\"") }
        let result = try insert()
        for index in indexes { try context.db.execute(sql: index.sql) }
        return result
    }
}
