import CardboxCore
import Foundation
import Testing

@testable import CardboxImaging

@Suite("Image work in worker processes")
struct ImageWorkerTests {
    /// A real image with `marker` after its end: a fault hook set for the marker strikes on it.
    static func marked(_ marker: String) throws -> Data {
        try ImageIngest.sample(width: 64, height: 48, format: .png) + Data(marker.utf8)
    }

    static func refusal(_ work: () throws -> Void) -> String? {
        do {
            try work()
            return nil
        } catch {
            return error.localizedDescription
        }
    }

    @Test("a decoder that crashes costs that image a clear error; the next image is taken")
    func crash() throws {
        let workers = ImageWorkers(environment: ["CARDBOX_IMAGE_WORKER_FAULT": "crash:POISON"])
        let poisoned = try Self.marked("POISON")
        let reason = Self.refusal { _ = try workers.ingest(poisoned, field: "card image") }
        #expect(reason == "card image: cannot be decoded: the image decoder stopped on it (signal 6)")
        let good = try ImageIngest.sample(width: 640, height: 480, format: .jpeg)
        #expect(try workers.ingest(good).width == 640)
    }

    @Test("a picture whose drawing always crashes is drawn twice, then refused; the next is drawn")
    func drawingCrash() throws {
        let workers = ImageWorkers(environment: ["CARDBOX_IMAGE_WORKER_FAULT": "crash:CRASHES"])
        let reason = Self.refusal { _ = try workers.renderCard(title: "CRASHES", caption: "", color: (1, 2, 3)) }
        #expect(reason == "picture: cannot be decoded: the image decoder stopped on it (signal 6)")
        #expect(try workers.renderCard(title: "draws", caption: "", color: (1, 2, 3)).count > 1000)
    }

    @Test("a decoder that hangs is stopped at the time limit; the next image is taken")
    func hang() throws {
        let workers = ImageWorkers(
            limits: .init(seconds: 1), environment: ["CARDBOX_IMAGE_WORKER_FAULT": "hang:STUCK"])
        let started = ContinuousClock.now
        let reason = Self.refusal { _ = try workers.ingest(try Self.marked("STUCK")) }
        #expect(reason == "image: took more than 1 s to decode, and was stopped")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try workers.ingest(try Self.marked("not stuck")).width == 64)
    }

    @Test("a worker's memory is bounded: one asking for more than its limit stops, its caller does not")
    func memory() throws {
        let workers = ImageWorkers(
            limits: .init(memoryBytes: 1 << 30), environment: ["CARDBOX_IMAGE_WORKER_FAULT": "allocate:GREEDY"])
        let reason = Self.refusal { _ = try workers.ingest(try Self.marked("GREEDY")) }
        #expect(reason?.hasPrefix("image: cannot be decoded: the image decoder stopped on it") == true)
        #expect(try workers.ingest(try Self.marked("modest")).height == 48)
    }

    @Test("refusals come back as the decoder's own errors, and the worker stays for the next image")
    func refusals() throws {
        let workers = ImageWorkers(limits: .init(workers: 1))
        let photo = try ImageIngest.sample(width: 300, height: 200, format: .jpeg)
        let reason = Self.refusal { _ = try workers.ingest(photo.prefix(photo.count / 2), field: "front image") }
        #expect(reason?.hasPrefix("front image: ") == true)
        #expect(reason?.contains("stopped") == false)
        #expect(try workers.ingest(photo).thumbnail.width == 256)
    }

    @Test("more jobs than workers wait their turn, and all are done")
    func queued() async throws {
        let workers = ImageWorkers(limits: .init(workers: 1))
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for width in [40, 50, 60, 70] {
                group.addTask {
                    try ImageWorkers.shared.ingest(try workers.sample(width: width, height: 30, format: .png)).width
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(widths.sorted() == [40, 50, 60, 70])
    }

    @Test("messages between a process and its worker: framed, bounded, nothing after their end")
    func messages() throws {
        let message = try WorkerMessage(
            ImageJob.ingest(field: "image", keepBytes: true), blobs: [Data([1, 2, 3]), Data()])
        let bytes = message.encoded
        #expect(try WorkerMessage.decode(bytes) == message)
        #expect(
            try WorkerMessage.decode(bytes).decodedHeader(as: ImageJob.self) == .ingest(field: "image", keepBytes: true)
        )
        #expect(throws: WorkerMessageError.ended) { try WorkerMessage.decode(bytes.dropLast()) }
        #expect(throws: WorkerMessageError.malformed("bytes follow its end")) { try WorkerMessage.decode(bytes + [0]) }
        let tooManyBlobs = Data([0, 0, 0, 2]) + Data("{}".utf8) + Data([0, 0, 0, 5])
        #expect(throws: WorkerMessageError.malformed("its blob count length 5 is over the limit of 4")) {
            try WorkerMessage.decode(tooManyBlobs)
        }
    }
}
