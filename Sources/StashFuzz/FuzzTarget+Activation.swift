#if DEBUG
import StashCore

extension FuzzTarget {
    /// The pid the fuzzed LISTEN_PID is compared with; seeds name it to reach LISTEN_FDS.
    static let activationPID: Int32 = 4242

    /// `LISTEN_PID`, a newline, `LISTEN_FDS`: either line may be missing (unset). The reading
    /// and the descriptor range a refusal names must never trap, whatever the text.
    static func activation(_ bytes: UnsafeRawBufferPointer) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let listenPID = lines.first.flatMap { $0 == "-" ? nil : $0 }
        let listenFDS = lines.count > 1 ? lines[1] : nil
        for processID in [activationPID, 1, .max] {
            guard case .descriptors(let count)? = try? ListenVariables.read(listenPID: listenPID, listenFDS: listenFDS, processID: processID) else { continue }
            _ = ListenVariables.lastDescriptor(count: count)
        }
    }
}
#endif
