import Foundation

/// What a comparison of the registry with the disk found (Verify, and the fast verify at
/// every start).
public struct VerifyReport: Equatable, Sendable {
    public var findings: [VerifyFinding]
    public var downloadsChecked: Int
    public var filesChecked: Int
    /// When the verify finished; nil when none ran.
    public var finishedAt: Date?
    public var durationMs: Int
    /// sha256 was checked too.
    public var deep: Bool
    /// The repair ran (not a dry run).
    public var repaired: Bool
    /// Downloads re-queued to fetch their missing files.
    public var requeued: Int
    public var filesDeleted: Int
    public var bytesFreed: Int64
    /// Deep verify: the files whose sha256 was computed. Only files given a digest have one to
    /// compare, and a file missing or of the wrong size is not read, so this is often far
    /// fewer than `filesChecked`.
    public var digestsChecked: Int

    public init(
        findings: [VerifyFinding] = [], downloadsChecked: Int = 0, filesChecked: Int = 0, finishedAt: Date? = nil,
        durationMs: Int = 0, deep: Bool = false, repaired: Bool = false, requeued: Int = 0, filesDeleted: Int = 0, bytesFreed: Int64 = 0,
        digestsChecked: Int = 0
    ) {
        self.findings = findings
        self.downloadsChecked = downloadsChecked
        self.filesChecked = filesChecked
        self.finishedAt = finishedAt
        self.durationMs = durationMs
        self.deep = deep
        self.repaired = repaired
        self.requeued = requeued
        self.filesDeleted = filesDeleted
        self.bytesFreed = bytesFreed
        self.digestsChecked = digestsChecked
    }
}

/// One disagreement between the registry and the disk.
public struct VerifyFinding: Equatable, Sendable {
    public enum Kind: Int, Sendable, CaseIterable {
        case unknown = 0
        /// A completed download's file is not on disk.
        case missingFile = 1
        /// A completed download's file has another size than recorded.
        case wrongSize = 2
        /// Deep verify: the file's sha256 is not the expected one.
        case wrongDigest = 3
        /// A folder under `assets/` that no download owns.
        case orphanFolder = 4
        /// A file in a download's folder that is none of its files.
        case orphanFile = 5
        /// A `.part` file of a download that is not active.
        case stalePart = 6

        public var name: String {
            switch self {
            case .unknown: return "unknown"
            case .missingFile: return "missing-file"
            case .wrongSize: return "wrong-size"
            case .wrongDigest: return "wrong-digest"
            case .orphanFolder: return "orphan-folder"
            case .orphanFile: return "orphan-file"
            case .stalePart: return "stale-part"
            }
        }
    }

    public var kind: Kind
    /// The download concerned; empty for an orphan folder.
    public var id: String
    /// Absolute path.
    public var path: String
    public var detail: String
    /// The repair acted on it (re-queued or deleted).
    public var repaired: Bool

    public init(kind: Kind, id: String, path: String, detail: String, repaired: Bool = false) {
        self.kind = kind
        self.id = id
        self.path = path
        self.detail = detail
        self.repaired = repaired
    }
}

/// What a purge deleted.
public struct PurgeResult: Equatable, Sendable {
    public var filesDeleted: Int
    public var bytesFreed: Int64
    public var paths: [String]

    public init(filesDeleted: Int = 0, bytesFreed: Int64 = 0, paths: [String] = []) {
        self.filesDeleted = filesDeleted
        self.bytesFreed = bytesFreed
        self.paths = paths
    }
}
