import Foundation

/// The 13 download states. Names, order and raw values 0–12 are part of the wire contract
/// and of the registry's on-disk format; never reorder them.
public enum DownloadState: Int, CaseIterable, Sendable, Codable {
    case notDownloaded = 0
    case preparing = 1
    case queued = 2
    case downloading = 3
    case paused = 4
    case completed = 5
    case failed = 6
    case removing = 7
    case stopped = 8
    case waitingForNetwork = 9
    case licenseExpired = 10
    case drmExpired = 11
    case restarting = 12

    /// The UPPER_SNAKE_CASE name used on the CLI, in JSON and in the registry.
    public var name: String {
        switch self {
        case .notDownloaded: return "NOT_DOWNLOADED"
        case .preparing: return "PREPARING"
        case .queued: return "QUEUED"
        case .downloading: return "DOWNLOADING"
        case .paused: return "PAUSED"
        case .completed: return "COMPLETED"
        case .failed: return "FAILED"
        case .removing: return "REMOVING"
        case .stopped: return "STOPPED"
        case .waitingForNetwork: return "WAITING_FOR_NETWORK"
        case .licenseExpired: return "LICENSE_EXPIRED"
        case .drmExpired: return "DRM_EXPIRED"
        case .restarting: return "RESTARTING"
        }
    }

    /// Parses a state name, case-insensitively, accepting `-` for `_` (`waiting-for-network`).
    public init?(name: String) {
        // The registry stores exact names: matching those first keeps a 100,000-record load
        // clear of the case folding below, which goes through Foundation's NSString.
        if let state = DownloadState.allCases.first(where: { $0.name == name }) {
            self = state
            return
        }
        let normalized = name.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let state = DownloadState.allCases.first(where: { $0.name == normalized }) else { return nil }
        self = state
    }

    /// States in which the engine owns a transfer (or is about to).
    public var isActive: Bool {
        self == .preparing || self == .downloading || self == .waitingForNetwork || self == .restarting
    }

    /// Every file is on disk and whole: COMPLETED, or complete with a licence that ran out.
    public var holdsCompleteFiles: Bool {
        self == .completed || self == .licenseExpired || self == .drmExpired
    }

    /// States from which no transfer will start without a client asking (a completed
    /// download's licence may still run out).
    public var isTerminal: Bool {
        self == .completed || self == .failed || self == .licenseExpired || self == .drmExpired
    }
}
