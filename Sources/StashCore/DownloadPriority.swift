/// How soon a queued download gets a slot: every high one before any normal one, every normal
/// one before any low one; within a priority, first come first served unless moved
/// (`stash move`). Raw values are the registry's and order the priorities.
public enum DownloadPriority: Int, CaseIterable, Comparable, Sendable, Codable {
    case low = 0
    case normal = 1
    case high = 2

    /// The lowercase name used on the CLI and in JSON.
    public var name: String {
        switch self {
        case .low: return "low"
        case .normal: return "normal"
        case .high: return "high"
        }
    }

    /// Parses `low`, `normal` or `high`, case-insensitively.
    public init?(name: String) {
        guard let priority = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = priority
    }

    public static func < (lhs: DownloadPriority, rhs: DownloadPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
