import Foundation
import StashCore

/// Compares what the registry says is under `assets/` with what is there. Runs off the
/// engine (it stats, lists and may hash many files); the engine acts on the findings.
enum AssetScanner {
    /// What one download should have on disk.
    struct Expected: Sendable {
        var id: String
        /// Absolute path of the download's folder (`<data-dir>/assets/<id>`).
        var folder: String
        var files: [DownloadFile]
        /// COMPLETED (or failed for a storage reason): every file must be there, whole.
        var shouldBeComplete: Bool
    }

    struct Result: Sendable {
        var findings: [VerifyFinding] = []
        var filesChecked = 0
    }

    /// Checks each expected download's files (stat; with `deep`, sha256 where one is known),
    /// then lists `assetsDir`: folders nobody owns are orphans; with `walkFolders`, each owned
    /// folder is walked too for files that are none of its download's files, and for part
    /// files of files that are already complete.
    static func scan(assetsDir: String, downloads: [Expected], deep: Bool, walkFolders: Bool) -> Result {
        fatalError("written by the scanner helper")
    }

    /// Deletes what a finding points at (a folder with everything in it, or one file) without
    /// following symlinks; returns the regular files deleted and their bytes.
    static func remove(_ finding: VerifyFinding) -> (files: Int, bytes: Int64) {
        fatalError("written by the scanner helper")
    }
}
