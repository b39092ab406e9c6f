import CardboxTestSupport
import Foundation
import Testing

/// The shell that starts the tests' PostgreSQL: its children must not hold this run's pipes, or a
/// test that reads a child's output to the end waits as long as the server lives.
@Suite("Commands the tests start hold none of the test run's descriptors")
struct IsolatedShellTests {
    @Test("a command sees only its input, its output and its errors, not a pipe this process holds")
    func inheritsNothing() throws {
        let held = Pipe()
        let (status, printed) = try IsolatedShell.run("ls /proc/$$/fd")
        #expect(status == 0)
        let descriptors = printed.split(separator: "\n").compactMap { Int32($0) }
        #expect(Set(descriptors).isSubset(of: [0, 1, 2, 10, 255]), "\(descriptors)")
        #expect(!descriptors.contains(held.fileHandleForWriting.fileDescriptor))
        #expect(!descriptors.contains(held.fileHandleForReading.fileDescriptor))
    }

    @Test("its exit status and what it printed, errors included, come back")
    func statusAndOutput() throws {
        let (status, printed) = try IsolatedShell.run("echo out; echo err >&2; exit 3")
        #expect(status == 3 && printed == "out\nerr\n")
    }
}
