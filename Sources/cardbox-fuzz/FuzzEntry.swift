import CardboxFuzzTargets
import Foundation

/// Prints the targets and why the run stopped, on stderr, and exits 2.
func refuse(_ reason: String) -> Never {
    FileHandle.standardError.write(
        Data("cardbox-fuzz: \(reason)\ntargets: \(FuzzTargets.names.joined(separator: " "))\n".utf8))
    Foundation.exit(2)
}

#if FUZZING
    // Built by scripts/fuzz.sh with -sanitize=fuzzer,address -DFUZZING -parse-as-library: libFuzzer drives the
    // process. The target is chosen by the environment variable CARDBOX_FUZZ_TARGET, read once.

    /// The target every input goes to.
    let selectedTarget: @Sendable (Data) -> Void = {
        let name = ProcessInfo.processInfo.environment["CARDBOX_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTargets.all[name] else {
            refuse(name.isEmpty ? "CARDBOX_FUZZ_TARGET is not set" : "unknown target '\(name)' in CARDBOX_FUZZ_TARGET")
        }
        return target
    }()

    /// libFuzzer calls this for every input. Thrown errors are swallowed by the target; crashes crash.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
        selectedTarget(data)
        return 0
    }

    /// libFuzzer calls this once before the first input: a missing or unknown target stops the run here,
    /// not inside an input (where libFuzzer would report the exit as a crash and save the input).
    @_cdecl("LLVMFuzzerInitialize")
    public func fuzzInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
        _ = selectedTarget
        return 0
    }

    /// libFuzzer's driver (`int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*)(const uint8_t *, size_t))`).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The program's entry when SwiftPM links it. SwiftPM compiles an executable module's entry point as
    /// `<module>_main` and links it with `--defsym main=cardbox_fuzz_main` (ELF), which replaces libFuzzer's
    /// own `main`; with -parse-as-library there is no entry point, so this function is it: it hands the
    /// command line to libFuzzer's driver, as libFuzzer's `main` would. (Linked without the rename,
    /// libFuzzer's `main` runs and this function is unused.)
    @_cdecl("cardbox_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        _ = selectedTarget
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
    }
#else
    /// Replays inputs through a target without libFuzzer: `cardbox-fuzz TARGET FILE|DIR...` runs the target
    /// on each file (a directory: every file in it, recursively, but hidden ones). A crash crashes; the name
    /// of the file being run is on stderr.
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard arguments.count >= 2 else { refuse("usage: cardbox-fuzz TARGET FILE|DIR...") }
            let name = arguments[0]
            guard let target = FuzzTargets.all[name] else { refuse("unknown target '\(name)'") }
            var count = 0
            for path in arguments.dropFirst() {
                for file in inputs(at: path) {
                    guard let data = FileManager.default.contents(atPath: file) else { refuse("cannot read \(file)") }
                    FileHandle.standardError.write(Data("\(name) < \(file)\n".utf8))
                    target(data)
                    count += 1
                }
            }
            print("\(name): \(count) input\(count == 1 ? "" : "s"), no crash")
        }

        /// The file itself, or the files under a directory, sorted.
        static func inputs(at path: String) -> [String] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                refuse("no such file or directory: \(path)")
            }
            guard isDirectory.boolValue else { return [path] }
            let folder = URL(fileURLWithPath: path)
            let relative = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
            return relative.sorted().compactMap { (subpath: String) -> String? in
                guard !subpath.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return nil }
                let file = folder.appendingPathComponent(subpath).path
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue
                else { return nil }
                return file
            }
        }
    }
#endif
