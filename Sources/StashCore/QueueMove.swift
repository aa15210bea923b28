/// Where `stash move` (Move) puts a queued download: first or last among the queued
/// downloads of its priority, or just before or after another queued download, taking that
/// one's priority so that it really runs next to it.
public enum QueueMove: Equatable, Sendable {
    case top
    case bottom
    case before(String)
    case after(String)

    /// The download it is placed next to, if any.
    public var other: String? {
        switch self {
        case .top, .bottom: return nil
        case .before(let other), .after(let other): return other
        }
    }
}
