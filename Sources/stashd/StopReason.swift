/// Why stashd stops: a signal, or `--exit-when-idle` finding nothing to do.
enum StopReason: Sendable, CustomStringConvertible {
    case signal(Int32)
    case idle(seconds: Int)

    var description: String {
        switch self {
        case .signal(let number): return "signal \(number)"
        case .idle(let seconds): return "idle for \(seconds) s"
        }
    }
}
