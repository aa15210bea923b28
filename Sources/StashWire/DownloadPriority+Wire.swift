import CStashProto
import StashCore

extension DownloadPriority {
    /// The wire's numbers put NORMAL at 0, so that a request without the field asks for normal.
    var wire: Stash__V1__Priority {
        switch self {
        case .normal: return STASH__V1__PRIORITY__PRIORITY_NORMAL
        case .low: return STASH__V1__PRIORITY__PRIORITY_LOW
        case .high: return STASH__V1__PRIORITY__PRIORITY_HIGH
        }
    }

    /// A number this version does not know is refused rather than guessed.
    init(wire: Stash__V1__Priority, field: StaticString) throws {
        switch wire {
        case STASH__V1__PRIORITY__PRIORITY_NORMAL: self = .normal
        case STASH__V1__PRIORITY__PRIORITY_LOW: self = .low
        case STASH__V1__PRIORITY__PRIORITY_HIGH: self = .high
        default:
            // protobuf-c stores whatever int32 was sent; read it back as one.
            let raw = Int32(truncatingIfNeeded: wire.rawValue)
            throw StashError.invalidArgument("\(field): unknown Priority value \(raw); known values are 0 (normal), 1 (low), 2 (high)")
        }
    }
}
