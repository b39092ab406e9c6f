import CardboxFuzzTargets
import Foundation
import Testing

@Suite("Fuzz seeds and saved crashes replay through their targets")
struct FuzzReplayTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files of Fuzz/FOLDER/TARGET, sorted (none when the folder does not exist).
    static func inputs(_ folder: String, _ target: String) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }.filter { url in
            var isDirectory: ObjCBool = false
            return !url.lastPathComponent.hasPrefix(".")
                && FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }

    @Test("every target has a seed corpus, and every corpus or regression folder is a target")
    func folders() throws {
        let corpus = try FileManager.default.contentsOfDirectory(
            atPath: Self.fuzz.appendingPathComponent("corpus").path)
        #expect(Set(corpus) == Set(FuzzTargets.names))
        let saved = try FileManager.default.contentsOfDirectory(
            atPath: Self.fuzz.appendingPathComponent("regressions").path
        ).filter { $0 != "README.md" }
        #expect(Set(saved).isSubset(of: Set(FuzzTargets.names)))
    }

    @Test("each seed and each saved crash runs through its target without crashing", arguments: FuzzTargets.names)
    func replay(target: String) throws {
        let run = try #require(FuzzTargets.all[target])
        let seeds = Self.inputs("corpus", target)
        #expect(!seeds.isEmpty)
        for file in seeds + Self.inputs("regressions", target) {
            // Errors are the expected answer to bad input and are swallowed by the target; a crash fails the run.
            run(try Data(contentsOf: file))
        }
    }
}
