import StashCrypto
import Foundation
import StashCore

/// Compares what the registry says is under `assets/` with what is there. Runs off the
/// engine (it stats, lists and may hash many files); the engine acts on the findings.
///
/// Below `assets/` nothing is reached through a symlink: folders are opened with O_NOFOLLOW
/// relative to their parent and entries are looked at with lstat semantics, so a link planted
/// in a folder is reported (and deleted) as a link, never walked, hashed through or emptied.
enum AssetScanner {
    /// What one download should have on disk.
    struct Expected: Sendable {
        var id: String
        /// Absolute path of the download's folder (`<data-dir>/assets/<id>`).
        var folder: String
        var files: [DownloadFile]
        /// COMPLETED (or failed for a storage reason): every file must be there, whole.
        var shouldBeComplete: Bool
        /// Paths in the folder that belong to work under way (a replacement's new copy): neither
        /// findings nor deleted.
        var inFlight: Set<String> = []
        /// Folders beside it in `assets/` that belong to such work (a replacement's new copy of
        /// a folder): no orphans.
        var inFlightFolders: [String] = []
    }

    struct Result: Sendable {
        var findings: [VerifyFinding] = []
        var filesChecked = 0
        /// Files whose sha256 was computed (deep).
        var digestsChecked = 0
        /// Calls that failed for another reason than their path going away during the scan;
        /// the scan went on without what they would have shown.
        var errors: [SystemCallError] = []
    }

    /// Bytes read per call when hashing a file.
    static let hashReadSize = 1 << 20

    /// Checks each expected download's files (stat; with `deep`, sha256 where one is known),
    /// then lists `assetsDir`: folders nobody owns are orphans; each owned folder is walked
    /// too for files that are none of its download's files, and for part files of files that
    /// are already complete.
    static func scan(assetsDir: String, downloads: [Expected], deep: Bool) -> Result {
        let scan = Scan(deep: deep)
        for download in downloads {
            scan.result.filesChecked += download.files.count
            if download.shouldBeComplete { scan.checkFiles(of: download) }
        }
        scan.findOrphans(in: assetsDir, owners: Set(downloads.map(\.id) + downloads.flatMap(\.inFlightFolders)))
        for download in downloads { scan.walkFolder(of: download) }
        return scan.sortedResult()
    }

    /// Only the listing of `assetsDir`: entries none of `owners` (download ids) claims.
    static func orphans(assetsDir: String, owners: [String]) -> Result {
        let scan = Scan(deep: false)
        scan.findOrphans(in: assetsDir, owners: Set(owners))
        return scan.sortedResult()
    }

    /// The names in `assetsDir` (the folders of downloads that have one), nil when it cannot
    /// be listed.
    static func names(in assetsDir: String) -> Set<String>? {
        guard let folder = try? FolderHandle.open(assetsDir, followingSymlink: true) else { return nil }
        defer { folder.release() }
        return (try? folder.names()).map(Set.init)
    }

    /// Deletes what a finding points at (a folder with everything in it, or one file) without
    /// following symlinks; returns the regular files deleted and their bytes.
    static func remove(_ finding: VerifyFinding) -> (files: Int, bytes: Int64) {
        let path = finding.path
        guard let slash = path.lastIndex(of: "/") else { return (0, 0) }
        let parentPath = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else { return (0, 0) }
        // The folders above the finding are the data dir's own (they may be symlinks, to another
        // disk say); from the parent down, everything is relative to an open folder.
        guard let parent = try? FolderHandle.open(parentPath, followingSymlink: true) else { return (0, 0) }
        defer { parent.release() }
        var removed: (files: Int, bytes: Int64) = (0, 0)
        parent.removeEntry(name, counting: &removed)
        return removed
    }

    // MARK: - Helpers

    static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    static func isFolder(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// What an entry is, for a finding's detail.
    static func describe(_ info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return "\(info.st_size) bytes"
        case S_IFLNK: return "a symlink"
        case S_IFDIR: return "a folder"
        default: return "a special file"
        }
    }

    /// The path went away between the listing and the call (or was never there).
    static func isGone(_ error: Error) -> Bool {
        guard let error = error as? SystemCallError else { return false }
        return error.errnoCode == ENOENT || error.errnoCode == ENOTDIR
    }

    static func linkStatus(_ path: String) throws -> stat {
        var info = stat()
        try SystemCallError.check("lstat", path) { lstat(path, &info) }
        return info
    }

    /// The SHA-256 of the file at `path` (no symlink followed), lowercase hex; `buffer` is
    /// reused between calls.
    static func sha256(of path: String, buffer: inout [UInt8]) throws -> String {
        let descriptor = try SystemCallError.check("open", path) { open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        defer { SystemCallError.close(descriptor) }
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: AssetScanner.hashReadSize) }
        let hasher = SHA256()
        try buffer.withUnsafeMutableBytes { bytes in
            while true {
                let count = try SystemCallError.check("read", path) { read(descriptor, bytes.baseAddress, bytes.count) }
                if count == 0 { break }
                hasher.update(UnsafeRawBufferPointer(start: bytes.baseAddress, count: count))
            }
        }
        return hasher.finalizeHex()
    }

}

extension AssetScanner {
    /// One run of `scan`: the result being built and the buffer hashing reuses.
    private final class Scan {
        let deep: Bool
        var result = Result()
        private var buffer: [UInt8] = []

        init(deep: Bool) {
            self.deep = deep
        }

        /// The result with its findings in a stable order: by path, then kind, then id.
        func sortedResult() -> Result {
            result.findings.sort { ($0.path, $0.kind.rawValue, $0.id) < ($1.path, $1.kind.rawValue, $1.id) }
            return result
        }

        func add(_ kind: VerifyFinding.Kind, _ id: String, _ path: String, _ detail: String) {
            result.findings.append(VerifyFinding(kind: kind, id: id, path: path, detail: detail))
        }

        /// Keeps a failure that tells something; a path that vanished meanwhile tells nothing.
        func record(_ error: Error) {
            guard !AssetScanner.isGone(error), let error = error as? SystemCallError else { return }
            result.errors.append(error)
        }

        /// One lstat per file; with `deep`, a read of those with a known digest.
        func checkFiles(of download: Expected) {
            for file in download.files {
                let path = download.folder + "/" + file.path
                let info: stat
                do {
                    info = try AssetScanner.linkStatus(path)
                } catch {
                    add(.missingFile, download.id, path, AssetScanner.isGone(error) ? "file missing on disk" : "file missing on disk: \(error)")
                    continue
                }
                guard AssetScanner.isRegular(info) else {
                    add(.missingFile, download.id, path, "file missing on disk: \(AssetScanner.describe(info)) is at its path")
                    continue
                }
                let size = Int64(info.st_size)
                if let expected = file.size, expected != size {
                    add(.wrongSize, download.id, path, "\(size) bytes on disk, expected \(expected)")
                    continue
                }
                guard deep, !file.sha256.isEmpty else { continue }
                let expected = file.sha256.lowercased()
                result.digestsChecked += 1
                do {
                    let actual = try sha256(of: path)
                    if actual != expected {
                        add(.wrongDigest, download.id, path, "sha256 \(actual) on disk, expected \(expected)")
                    }
                } catch {
                    if AssetScanner.isGone(error) {
                        add(.missingFile, download.id, path, "file missing on disk")
                    } else {
                        // Content nobody can read cannot be vouched for; fetching it again is the fix.
                        add(.wrongDigest, download.id, path, "sha256 could not be computed, expected \(expected): \(error)")
                    }
                }
            }
        }

        private func sha256(of path: String) throws -> String {
            try AssetScanner.sha256(of: path, buffer: &buffer)
        }

        /// One readdir of `assetsDir`; only the names nobody owns are looked at further.
        func findOrphans(in assetsDir: String, owners: Set<String>) {
            let folder: FolderHandle
            let names: [String]
            do {
                folder = try FolderHandle.open(assetsDir, followingSymlink: true)
            } catch {
                record(error)
                return
            }
            defer { folder.release() }
            do {
                names = try folder.names()
            } catch {
                record(error)
                return
            }
            for name in names where !owners.contains(name) {
                let path = assetsDir + "/" + name
                let info: stat
                do {
                    info = try folder.status(name)
                } catch {
                    record(error)
                    continue
                }
                if AssetScanner.isFolder(info) {
                    add(.orphanFolder, "", path, "\(bytes(in: name, of: folder)) bytes in a folder no download owns")
                } else {
                    add(.orphanFile, "", path, "\(AssetScanner.describe(info)) in assets/ that is no download's folder")
                }
            }
        }

        /// The bytes of the regular files below a folder, as `remove` would count them.
        private func bytes(in name: String, of parent: FolderHandle) -> Int64 {
            let folder: FolderHandle
            do {
                folder = try parent.child(name)
            } catch {
                record(error)
                return 0
            }
            defer { folder.release() }
            var total: Int64 = 0
            walk(folder, relative: "") { _, _, _, info in
                if AssetScanner.isRegular(info) { total += Int64(info.st_size) }
            }
            return total
        }

        /// Everything in a download's folder that is not one of its files, nor the part file of
        /// one still being fetched.
        func walkFolder(of download: Expected) {
            let folder: FolderHandle
            do {
                folder = try FolderHandle.open(download.folder, followingSymlink: false)
            } catch let error as SystemCallError where error.errnoCode == ENOTDIR || error.errnoCode == ELOOP {
                // A file or a symlink where the folder should be: transfers refuse to write
                // through it, so it is reported like any stray file of the download.
                if let info = try? AssetScanner.linkStatus(download.folder), !AssetScanner.isFolder(info) {
                    add(.orphanFile, download.id, download.folder, "\(AssetScanner.describe(info)) where the download's folder should be")
                }
                return
            } catch {
                record(error)
                return
            }
            defer { folder.release() }
            var files: [String: DownloadFile] = [:]
            for file in download.files { files[file.path] = file }
            walk(folder, relative: "") { parent, name, relative, info in
                if files[relative] != nil || download.inFlight.contains(relative) { return }
                if relative.hasSuffix(".part"), let file = files[String(relative.dropLast(5))] {
                    if download.shouldBeComplete {
                        add(.stalePart, download.id, download.folder + "/" + relative, "part file of a completed download, \(AssetScanner.describe(info))")
                    } else if isComplete(file, named: String(name.dropLast(5)), in: parent) {
                        add(.stalePart, download.id, download.folder + "/" + relative, "part file of a file already complete, \(AssetScanner.describe(info))")
                    }
                    // Otherwise it is resume data of a file still to fetch.
                    return
                }
                add(.orphanFile, download.id, download.folder + "/" + relative, "\(AssetScanner.describe(info)) that is none of the download's files")
            }
        }

        /// The file is at its final path with its size (when known): the engine's own measure
        /// of a complete file.
        private func isComplete(_ file: DownloadFile, named name: String, in folder: FolderHandle) -> Bool {
            guard let info = try? folder.status(name), AssetScanner.isRegular(info) else { return false }
            return file.size == nil || file.size == Int64(info.st_size)
        }

        /// Walks `folder` (see `FolderHandle.walk`); a call that fails is recorded and the walk goes on.
        private func walk(_ folder: FolderHandle, relative: String, _ visit: (FolderHandle, String, String, stat) -> Void) {
            folder.walk(relative: relative, failed: { record($0) }, visit)
        }
    }
}
