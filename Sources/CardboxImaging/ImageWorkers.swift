import CSpawn
import CardboxCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where image work runs: in worker processes (`cardbox-image-worker`, the one program that links
/// libvips), started on first use and kept for the next image. A decoder that crashes, hangs or
/// runs out of memory on a hostile image costs that image a clear error and its worker, never the
/// process that asked (a server serving every account); and a command that touches no image never
/// loads libvips and its hundred shared libraries.
public final class ImageWorkers: @unchecked Sendable {
    public struct Limits: Sendable {
        /// A worker's address space (RLIMIT_AS): a 50-megapixel image decodes in a few hundred MB.
        public var memoryBytes: Int
        /// How long one job may take before its worker is killed.
        public var seconds: Double
        /// Workers at once; a job beyond them waits for one to be free.
        public var workers: Int

        public init(memoryBytes: Int = 2 << 30, seconds: Double = 60, workers: Int? = nil) {
            self.memoryBytes = memoryBytes
            self.seconds = seconds
            self.workers = workers ?? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        }
    }

    /// The workers every `ImageIngest` call uses.
    public static let shared = ImageWorkers()

    /// The worker program's name; it is looked for beside the running program.
    public static let programName = "cardbox-image-worker"
    /// Names the worker program's path, where it is not beside the running program.
    public static let programVariable = "CARDBOX_IMAGE_WORKER"

    public let limits: Limits
    private let environment: [String: String]
    private let condition = NSCondition()
    private var idle: [WorkerProcess] = []
    private var busy = 0

    /// `environment` is added to this process's own for the workers (tests set the worker's fault
    /// hooks through it).
    public init(limits: Limits = Limits(), environment: [String: String] = [:]) {
        self.limits = limits
        self.environment = environment
    }

    deinit {
        for worker in idle { worker.stop() }
    }

    // MARK: The work

    /// Checks an image and makes its thumbnail (see `ImageIngest.ingest`).
    public func ingest(_ data: Data, field: String = "image", keepBytes: Bool = false) throws -> IngestedImage {
        // Refused here, before megabytes travel: not an image, or over seed 002's 5 MB.
        _ = try ImageFormat.validate(data, field: field)
        let (outcome, blobs) = try perform(.ingest(field: field, keepBytes: keepBytes), blobs: [data], field: field)
        guard case .ingested(let shape) = outcome, blobs.count == 2 else {
            throw Self.unexpected(outcome, field: field)
        }
        return shape.image(data: blobs[0], thumbnail: blobs[1])
    }

    /// The image as JPEG at its stored size (see `ImageIngest.displayable`).
    public func displayable(_ data: Data) throws -> Data {
        try encoded(.displayable, blobs: [data], field: "image")
    }

    /// A square picture with a title and caption (see `ImageIngest.renderCard`).
    public func renderCard(
        title: String, caption: String, size: Int = 512, color: (Int, Int, Int), quality: Int = 85
    ) throws -> Data {
        try encoded(
            .renderCard(
                title: title, caption: caption, size: size, red: color.0, green: color.1, blue: color.2,
                quality: quality), blobs: [], field: "picture")
    }

    /// A photo-like test image (see `ImageIngest.sample`).
    public func sample(width: Int, height: Int, seed: Int = 1, format: ImageFormat) throws -> Data {
        try encoded(.sample(width: width, height: height, seed: seed, format: format), blobs: [], field: "sample image")
    }

    private func encoded(_ job: ImageJob, blobs: [Data], field: String) throws -> Data {
        let (outcome, reply) = try perform(job, blobs: blobs, field: field)
        guard outcome == .encoded, let data = reply.first else { throw Self.unexpected(outcome, field: field) }
        return data
    }

    /// Runs one job in a free worker. A refusal comes back as `CardboxError.invalid` naming `field`;
    /// a worker that stops, answers nonsense or overruns its time is ended and named in the error.
    /// A picture Cardbox draws from its own text is drawn again once by a new worker when the first
    /// stopped: Pango's fontconfig thread races its caller's first use of fontconfig (pango#784),
    /// about one fresh worker in a hundred under load, whatever the text.
    func perform(_ job: ImageJob, blobs: [Data], field: String) throws -> (ImageJobOutcome, [Data]) {
        var attempts = if case .renderCard = job { 2 } else { 1 }
        while true {
            do {
                return try performOnce(job, blobs: blobs, field: field)
            } catch WorkerStopped.crashed(let how) {
                attempts -= 1
                guard attempts > 0 else {
                    throw CardboxError.invalid(
                        field: field, reason: "cannot be decoded: the image decoder stopped on it (\(how))")
                }
            }
        }
    }

    private func performOnce(_ job: ImageJob, blobs: [Data], field: String) throws -> (ImageJobOutcome, [Data]) {
        let worker = try checkOut()
        var keep = false
        defer { checkIn(worker, keep: keep) }
        let deadline = ContinuousClock.now + .milliseconds(Int(limits.seconds * 1000))
        let reply: WorkerMessage
        let outcome: ImageJobOutcome
        do {
            try worker.send(try WorkerMessage(job, blobs: blobs).encoded, before: deadline)
            reply = try worker.receive(before: deadline)
            outcome = try reply.decodedHeader(as: ImageJobOutcome.self)
        } catch WorkerFailure.timedOut {
            worker.stop()
            throw CardboxError.invalid(
                field: field, reason: "took more than \(Self.seconds(limits.seconds)) to decode, and was stopped")
        } catch WorkerFailure.ended {
            throw WorkerStopped.crashed(how: worker.stop(graceSeconds: 1))
        } catch {
            worker.stop()
            throw CardboxError.storage("the image worker answered wrongly: \(error)")
        }
        keep = true
        if case .refused(let field, let reason) = outcome { throw CardboxError.invalid(field: field, reason: reason) }
        return (outcome, reply.blobs)
    }

    private static func unexpected(_ outcome: ImageJobOutcome, field: String) -> CardboxError {
        .storage("the image worker answered \(outcome) for \(field)")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: The pool

    private func checkOut() throws -> WorkerProcess {
        condition.lock()
        while idle.isEmpty && busy >= limits.workers { condition.wait() }
        busy += 1
        let reused = idle.popLast()
        condition.unlock()
        if let reused { return reused }
        do {
            return try WorkerProcess.start(
                program: try Self.program(), arguments: ["--memory-limit", String(limits.memoryBytes)],
                environment: environment)
        } catch {
            checkIn(nil, keep: false)
            throw error
        }
    }

    private func checkIn(_ worker: WorkerProcess?, keep: Bool) {
        condition.lock()
        busy -= 1
        if let worker, keep { idle.append(worker) }
        condition.signal()
        condition.unlock()
    }

    /// The worker program: `CARDBOX_IMAGE_WORKER`, or `cardbox-image-worker` beside the running program
    /// (built with it: `swift build --product cardbox-image-worker`).
    static func program() throws -> String {
        try CompanionProgram(name: programName, variable: programVariable, neededFor: "images").path()
    }
}

/// A worker that stopped on a job, and how (its exit status or signal).
enum WorkerStopped: Error {
    case crashed(how: String)
}

enum WorkerFailure: Error {
    case timedOut
    /// The worker closed its end: it exited or was killed.
    case ended
    case io(String)
}

/// One worker process and the socket to it (its standard input and output).
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let socket: Int32
    private var stopped: String?

    private init(pid: pid_t, socket: Int32) {
        self.pid = pid
        self.socket = socket
    }

    static func start(program: String, arguments: [String], environment: [String: String]) throws -> WorkerProcess {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw CardboxError.storage("the image worker could not start: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        // The worker inherits nothing else this process has open (databases, sockets of clients).
        cbx_spawn_close_from(&actions, 3)
        // Fewer malloc arenas: each reserves 64 MB of the worker's bounded address space.
        var variables = ProcessInfo.processInfo.environment.merging(["MALLOC_ARENA_MAX": "2"]) { _, new in new }
        variables.merge(environment) { _, new in new }
        let argv = ([program] + arguments).map { strdup($0) }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, argv + [nil], envp + [nil])
        guard status == 0 else {
            close(ends[0])
            throw CardboxError.storage(
                "the image worker \(program) could not start: \(String(cString: strerror(status)))")
        }
        return WorkerProcess(pid: pid, socket: ends[0])
    }

    func send(_ data: Data, before deadline: ContinuousClock.Instant) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                try wait(for: Int16(POLLOUT), before: deadline)
                let sent = Glibc.send(
                    socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if sent > 0 {
                    offset += sent
                } else if errno == EPIPE || errno == ECONNRESET {
                    throw WorkerFailure.ended
                } else if errno != EAGAIN && errno != EINTR {
                    throw WorkerFailure.io(String(cString: strerror(errno)))
                }
            }
        }
    }

    func receive(before deadline: ContinuousClock.Instant) throws -> WorkerMessage {
        try WorkerMessage.read { buffer in
            var offset = 0
            while offset < buffer.count {
                try wait(for: Int16(POLLIN), before: deadline)
                let count = buffer.withUnsafeMutableBytes {
                    recv(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT))
                }
                if count > 0 {
                    offset += count
                } else if count == 0 || errno == ECONNRESET {
                    throw WorkerFailure.ended
                } else if errno != EAGAIN && errno != EINTR {
                    throw WorkerFailure.io(String(cString: strerror(errno)))
                }
            }
        }
    }

    private func wait(for events: Int16, before deadline: ContinuousClock.Instant) throws {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw WorkerFailure.timedOut }
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, Int64(Int32.max)))
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            // Ready, or hung up (the read or write that follows says which).
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw WorkerFailure.io(String(cString: strerror(errno))) }
        }
    }

    /// Ends the worker and says how it ended. One that closed its end is given a second to exit (its
    /// signal is the news); one still running is killed.
    @discardableResult
    func stop(graceSeconds: Double = 0) -> String {
        if let stopped { return stopped }
        close(socket)
        var status: Int32 = 0
        var waited = waitpid(pid, &status, WNOHANG)
        let grace = ContinuousClock.now + .milliseconds(Int(graceSeconds * 1000))
        while waited == 0 && ContinuousClock.now < grace {
            usleep(5_000)
            waited = waitpid(pid, &status, WNOHANG)
        }
        if waited == 0 {
            kill(pid, SIGKILL)
            waited = waitpid(pid, &status, 0)
        }
        let how =
            if waited != pid { "its end is unknown" } else if status & 0x7f == 0 {
                "exit status \((status >> 8) & 0xff)"
            } else { "signal \(status & 0x7f)" }
        stopped = how
        return how
    }
}
