import Foundation
import StashFuzz

#if STASH_FUZZ
/// libFuzzer's entry for a program with its own main (`-sanitize=fuzzer` links libFuzzer in).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target named by STASH_FUZZ_TARGET, read once.
private let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["STASH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        StashFuzzEntry.fail("STASH_FUZZ_TARGET is '\(name)'; set it to one of \(StashFuzzEntry.names)", 64)
    }
    return target
}()

/// libFuzzer calls this for every input. SwiftPM links libFuzzer's own main too, which
/// calls it directly; whichever main runs, the fuzzing is the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#endif

/// `stash-fuzz TARGET FILE...` runs the files through a target once, to reproduce what the
/// fuzzer saved. Built by `make fuzz` (with libFuzzer), `STASH_FUZZ_TARGET=TARGET stash-fuzz
/// [libFuzzer flags] [CORPUS...]` fuzzes the target instead.
@main
struct StashFuzzEntry {
    static let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")

    static func main() {
        #if STASH_FUZZ
        fuzz()
        #else
        replay(Array(CommandLine.arguments.dropFirst()))
        #endif
    }

    #if STASH_FUZZ
    static func fuzz() -> Never {
        _ = fuzzTarget
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
    }
    #endif

    static func replay(_ arguments: [String]) {
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            fail("usage: stash-fuzz TARGET FILE... (targets: \(names))", 64)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { fail("stash-fuzz: cannot read \(path)", 66) }
            data.withUnsafeBytes { target.run($0) }
            print("\(path): ok")
        }
    }

    static func fail(_ message: String, _ status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}
