import CardboxCore
import Foundation
import GRDB

/// The open connection(s) to a store's file, shared by every `CardboxStore` value made from one
/// open (the store of an account joined at sign-in too), so that all of them see the new file when
/// adopting a snapshot puts one in the old one's place.
final class StoreFile: @unchecked Sendable {
    private let lock = NSLock()
    private var current: any DatabaseWriter
    /// The file's path; nil for a store in memory.
    let path: String?
    /// Opens the file at `path` again, as it was opened first.
    private let reopen: (@Sendable () throws -> any DatabaseWriter)?

    init(writer: any DatabaseWriter, path: String?, reopen: (@Sendable () throws -> any DatabaseWriter)?) {
        self.current = writer
        self.path = path
        self.reopen = reopen
    }

    var writer: any DatabaseWriter { lock.withLock { current } }

    /// The size in bytes of the file at `path`, or nil when it cannot be read. `stat` itself: every
    /// command asks this of its store and its log, where Foundation's file attributes build a
    /// dictionary of every attribute, each boxed and cast back, at a cost a short command notices.
    static func size(atPath path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Whether `replace(with:ifStill:)` can be tried: the store is a file.
    var isReplaceable: Bool { path != nil && reopen != nil }

    /// Puts the SQLite file at `replacement` (in the store's folder) in the store's place, when
    /// `ifStill` (asked of the store's file once nothing of this process has it open) holds; else
    /// leaves everything as it was and answers false. The file is renamed over the store's, so it
    /// is written once, where copying it in wrote it twice (into the log, then the file).
    ///
    /// While the file changes, this process's connections to it are closed: a use of the store
    /// begun on another thread meanwhile fails with "database is closed" instead of reaching a file
    /// about to be replaced. When another process has the store open, nothing is renamed (it would
    /// go on writing to the old file, and its log would be read as the new file's): the answer is
    /// false.
    func replace(with replacement: String, ifStill holds: (Database) throws -> Bool) throws -> Bool {
        guard let path, let reopen else { return false }
        return try lock.withLock {
            // A connection that cannot close (a statement still running on another thread) keeps
            // the file as it is: the caller copies the snapshot in instead.
            do { try current.close() } catch { return false }
            let outcome = Result { try Self.rename(replacement, over: path, ifStill: holds) }
            // Whatever happened, the store is open again: on the new file or on the old one.
            current = try reopen()
            return try outcome.get()
        }
    }

    /// Closes this process's connections to the store; it is unusable after. False, with the store
    /// as it was, while a use of it is running on another thread.
    func close() -> Bool {
        lock.withLock { (try? current.close()) != nil }
    }

    /// Closes this process's connections to the store and deletes its file, for a store that can
    /// be made again from elsewhere (the server's copy of an account); the store is unusable after.
    /// When a use of it is running on another thread (a connection cannot close) or another process
    /// has it open, nothing changes and the answer is false.
    func delete() -> Bool {
        guard let path, let reopen else { return false }
        return lock.withLock {
            do { try current.close() } catch { return false }
            guard !Self.openElsewhere(path) else {
                if let reopened = try? reopen() { current = reopened }
                return false
            }
            // The last connection folded the log into the file; a log left beside a new file of
            // the same name would be read as that file's, so it goes first.
            for suffix in ["-wal", "-shm", ""] { unlink(path + suffix) }
            return true
        }
    }

    private static func rename(_ replacement: String, over path: String, ifStill holds: (Database) throws -> Bool)
        throws -> Bool
    {
        // A connection of its own, closed before the rename: as the last one, it folds the log into
        // the file and deletes it.
        let check = try DatabaseQueue(path: path)
        let stillHolds = try check.read(holds)
        try check.close()
        let log = size(atPath: path + "-wal") ?? 0
        guard stillHolds, log == 0, !openElsewhere(path) else { return false }
        guard Foundation.rename(replacement, path) == 0 else {
            throw CardboxError.storage("cannot move the snapshot into place: \(String(cString: strerror(errno)))")
        }
        syncFolder(of: path)
        return true
    }

    /// Whether another process has the store open: every SQLite connection to a WAL database holds
    /// a shared lock on one byte of its `-shm` file (SQLite's "DMS" slot, byte 128) while open. A
    /// process does not see its own locks this way, so this is asked once this one has closed its
    /// connections. An unanswerable question counts as yes.
    private static func openElsewhere(_ path: String) -> Bool {
        let shm = open(path + "-shm", O_RDWR)
        guard shm >= 0 else { return errno != ENOENT }
        defer { Foundation.close(shm) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(shm, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// Makes a rename in the folder of `path` survive a power cut.
    private static func syncFolder(of path: String) {
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        guard folder >= 0 else { return }
        fsync(folder)
        Foundation.close(folder)
    }
}
