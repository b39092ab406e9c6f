import CAllocator
import Foundation
import Testing

@testable import CardboxHTTP

@Suite("Free memory given back to the system")
struct FreeMemoryReturnTests {
    @Test("given back once the private memory has grown by the step since the last time, not before")
    func whenToReturn() {
        var tracker = FreeMemoryTracker(growth: 100)
        // No mark yet (no /proc here, say): nothing to compare with.
        #expect(!tracker.shouldReturn(at: 5_000))
        tracker.marked(at: 1_000)
        #expect(!tracker.shouldReturn(at: 1_099))
        #expect(tracker.shouldReturn(at: 1_100))
        #expect(!tracker.shouldReturn(at: nil))
        // After a return the memory left is the new mark: a load whose memory is in use is not
        // trimmed again until it grows again.
        tracker.marked(at: 1_080)
        #expect(!tracker.shouldReturn(at: 1_150))
        #expect(tracker.shouldReturn(at: 1_180))
    }

    @Test("the allocator gives back the pages a burst left free between blocks still in use")
    func allocatorGivesBack() throws {
        // 8 KiB blocks, every other one freed: holes the top of the heap cannot hand back by itself.
        var kept: [UnsafeMutableRawPointer] = []
        var freed: [UnsafeMutableRawPointer] = []
        for index in 0..<4_096 {
            let block = try #require(malloc(8_192))
            memset(block, 1, 8_192)
            if index.isMultiple(of: 2) { kept.append(block) } else { freed.append(block) }
        }
        freed.forEach { free($0) }
        #expect(cbx_return_free_memory() == 1)
        kept.forEach { free($0) }
        #expect((ProcessMemory.privateResidentBytes() ?? 0) > 0)
    }
}
