import CardboxCore
import CardboxImaging
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The image worker's side (`cardbox-image-worker`): reads `ImageJob`s from its standard input, does
/// them with libvips, and answers each on its standard output, until its input ends.
public enum ImageWorkerService {
    /// Names a fault for the tests to inject: `crash:MARKER`, `hang:MARKER` or `allocate:MARKER`
    /// makes the worker abort, stop answering, or ask for 4 GiB when a job (its image, or its text)
    /// contains the bytes MARKER. It proves that a decoder's crash, hang or appetite costs one image, not its caller.
    public static let faultVariable = "CARDBOX_IMAGE_WORKER_FAULT"

    public static func main(arguments: [String]) -> Int32 {
        guard let memoryLimit = memoryLimit(in: arguments) else {
            FileHandle.standardError.write(Data("usage: cardbox-image-worker --memory-limit BYTES\n".utf8))
            return 64
        }
        var limit = rlimit(rlim_cur: rlim_t(memoryLimit), rlim_max: rlim_t(memoryLimit))
        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        // Answers go out on a copy of standard output; standard output itself becomes standard error,
        // so that nothing a library prints can break into a message.
        let answers = dup(1)
        dup2(2, 1)
        let fault = Fault(ProcessInfo.processInfo.environment[faultVariable])
        while true {
            let message: WorkerMessage
            do {
                message = try WorkerMessage.read { try fill(&$0, from: 0) }
            } catch WorkerMessageError.ended {
                return 0
            } catch {
                FileHandle.standardError.write(Data("cardbox-image-worker: \(error)\n".utf8))
                return 65
            }
            fault?.strike([message.header] + message.blobs)
            let (outcome, blobs) = perform(message)
            guard let reply = try? WorkerMessage(outcome, blobs: blobs), write(reply.encoded, to: answers) else {
                return 74
            }
        }
    }

    /// Does one job; every failure is an answer.
    static func perform(_ message: WorkerMessage) -> (ImageJobOutcome, [Data]) {
        var field = "image"
        do {
            let job = try message.decodedHeader(as: ImageJob.self)
            let image = message.blobs.first ?? Data()
            switch job {
            case .ingest(let named, let keepBytes):
                field = named
                let ingested = try VipsImages.ingest(image, field: named, keepBytes: keepBytes)
                return (.ingested(IngestedShape(ingested)), [ingested.data, ingested.thumbnail.data])
            case .displayable:
                return (.encoded, [try VipsImages.displayable(image)])
            case .renderCard(let title, let caption, let size, let red, let green, let blue, let quality):
                field = "picture"
                let picture = try VipsImages.renderCard(
                    title: title, caption: caption, size: size, color: (red, green, blue), quality: quality)
                return (.encoded, [picture])
            case .sample(let width, let height, let seed, let format):
                field = "sample image"
                return (.encoded, [try VipsImages.sample(width: width, height: height, seed: seed, format: format)])
            }
        } catch CardboxError.invalid(let field, let reason) {
            return (.refused(field: field, reason: reason), [])
        } catch {
            return (.refused(field: field, reason: "\(error)"), [])
        }
    }

    private static func memoryLimit(in arguments: [String]) -> Int? {
        guard arguments.count == 2, arguments[0] == "--memory-limit", let bytes = Int(arguments[1]), bytes > 0 else {
            return nil
        }
        return bytes
    }

    private static func fill(_ buffer: inout [UInt8], from descriptor: Int32) throws {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count > 0 {
                offset += count
            } else if count == 0 || errno != EINTR {
                throw WorkerMessageError.ended
            }
        }
    }

    private static func write(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count > 0 {
                    offset += count
                } else if errno != EINTR {
                    return false
                }
            }
            return true
        }
    }

    /// A fault injected by the tests (see `faultVariable`).
    struct Fault {
        enum Kind: String {
            case crash
            case hang
            case allocate
        }
        let kind: Kind
        let marker: Data

        init?(_ setting: String?) {
            guard let setting, let colon = setting.firstIndex(of: ":"),
                let kind = Kind(rawValue: String(setting[..<colon]))
            else { return nil }
            let marker = Data(setting[setting.index(after: colon)...].utf8)
            guard !marker.isEmpty else { return nil }
            self.kind = kind
            self.marker = marker
        }

        func strike(_ blobs: [Data]) {
            guard blobs.contains(where: { $0.range(of: marker) != nil }) else { return }
            switch kind {
            case .crash:
                abort()
            case .hang:
                while true { sleep(60) }
            case .allocate:
                let bytes = 4 << 30
                let memory = malloc(bytes)
                // Without the limit this succeeds and the job goes on; with it the worker stops here.
                guard let memory else { abort() }
                memset(memory, 1, bytes)
                free(memory)
            }
        }
    }
}
