import CSpawn
import Foundation

/// Runs a shell command the way `popen` does, except that the command inherits none of this
/// process's descriptors but its output. `popen` hands the child every descriptor open without
/// close-on-exec, which includes the ends of Foundation's `Pipe`s: the PostgreSQL server started
/// for the tests (and its watchdog) live as long as the test run, so a pipe end they inherited
/// never closes, and a test reading its child's output to the end, or waiting for a child that
/// exits at end of input, waits for ever.
public enum IsolatedShell {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `command` with `/bin/sh -c`, its output and errors into one pipe; answers the exit
    /// status and what it printed.
    public static func run(_ command: String) throws -> (status: Int32, printed: String) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "no pipe: \(errnoText(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        cbx_spawn_close_from(&actions, 3)
        let argv = [String](["/bin/sh", "-c", command]).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv + [nil], environ)
        close(ends[1])
        defer { close(ends[0]) }
        guard spawned == 0 else { throw Failure(description: "cannot run /bin/sh: \(errnoText(spawned))") }
        var printed = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count > 0 {
                printed += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // The exit code when it exited, else 128 + the signal, as a shell reports it.
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, String(decoding: printed, as: UTF8.self))
    }

    private static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
