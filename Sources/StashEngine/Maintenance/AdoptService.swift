import Foundation
import Logging
import StashCore

/// Adopt: a file or folder already on disk becomes a COMPLETED download, so a registry rebuilt
/// after a loss (or files fetched by other means) is not fetched again. The hashing, the walk
/// of a folder and the move (a copy across file systems) run on the `FilePool`; the engine
/// enters the record and, once it is durable, watches the files (`.adopted`).
struct AdoptService: Sendable {
    let layout: AssetLayout
    let files: FilePool
    let clock: WallClock
    let logger: Logger

    /// Takes `path` (absolute; a regular file or a folder of regular files, no symlink in it)
    /// into `assets/<id>/`, moved or, with `link`, hard-linked. A file with a `url` is a
    /// single-file download of that URL (named as stash names it); without one, and a folder,
    /// is a bundle. `sha256` is checked first when given.
    func adopt(path: String, id: String, url: String, sha256: String, link: Bool, host: some MaintenanceHost) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        if await host.download(id) != nil {
            throw StashError(.alreadyExists, "download '\(id)' already exists; adopt under another id")
        }
        let paths = DataDirGuard(dataDir: layout.dataDir)
        let source = try paths.resolve(path, field: "path", followingLast: false)
        guard source.tail.count == 1, let info = try SystemCallError.status(source.canonical, followingSymlink: false) else {
            throw StashError.invalidArgument("path \(source.shown): nothing is there")
        }
        // The registry, the lock, the keys, another download: none of it is stash's to take.
        try paths.refuse(source, field: "path")
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else {
            throw StashError.invalidArgument("path \(source.shown) is not a regular file or a folder (symlinks are not followed)")
        }
        let isFile = kind == S_IFREG
        if !url.isEmpty {
            guard isFile else { throw StashError.invalidArgument("url applies to a file; a folder is adopted as a bundle") }
            try DownloadRequestRules.validateURI(url)
        }
        let digest = try DownloadRequestRules.normalizeSHA256(sha256)
        if !digest.isEmpty, !isFile { throw StashError.invalidArgument("sha256 applies to a file, not to a folder") }
        let single = isFile && !url.isEmpty
        let entry = source.tail[0]
        let name = single ? AssetLayout.fileName(from: url) : AssetLayout.safeFileName(entry)
        let size = Int64(info.st_size)
        let placement = AdoptPlacement(source: source, id: id, assetsDir: layout.assetsDir, fileName: isFile ? name : nil, link: link)
        let folder = layout.assetFolder(id: id)
        let (files, placed) = try await self.files.run { () throws -> ([DownloadFile], AdoptPlacement.Placed) in
            if !digest.isEmpty {
                var buffer: [UInt8] = []
                let actual = try AssetScanner.sha256(of: source.canonical, buffer: &buffer)
                guard actual == digest else {
                    throw StashError(.invalidArgument, "sha256 of \(path) is \(actual), not \(digest); nothing was adopted")
                }
            }
            let files = isFile
                ? [DownloadFile(url: url, path: name, size: size, sha256: digest, downloadedBytes: size, done: true)]
                : try Self.filesOfFolder(source)
            if (try? SystemCallError.status(folder, followingSymlink: false)) != nil {
                throw StashError(.alreadyExists, "\(folder) exists though no download owns it; `stash purge` deletes it, or adopt under another id")
            }
            return (files, try placement.place(files: files))
        }

        let total = files.saturatingSum(\.downloadedBytes)
        let download = Download(
            id: id, uri: single ? url : "", title: entry, state: .completed,
            downloadedBytes: total, totalBytes: total,
            assetPath: single ? layout.relativeFilePath(id: id, uri: url) : layout.relativeFolderPath(id: id),
            stateReason: "adopted from \(path)", createdAt: clock.now(), completedAt: clock.now(), sha256: digest, isBundle: !single, files: files)
        let logger = self.logger
        do {
            try await host.insert(download)
        } catch {
            // Not recorded: the files go back where they were, as far as they can.
            _ = try? await self.files.run { placement.takeBack(placed, logger: logger) }
            throw error
        }
        // A copy across file systems is recorded: the user's originals go now, not before.
        if placed == .copied { _ = try? await self.files.run { placement.removeSource(logger: logger) } }
        _ = try await host.submit(.adopted(id))
        logger.info("download adopted", metadata: ["id": "\(id)", "files": "\(files.count)", "bytes": "\(total)", "linked": "\(link)"])
        return layout.publicView(download)
    }

    /// Every regular file under the folder `source`, by relative path, walked from its
    /// descriptor without following a symlink; a symlink or another kind of entry refuses the
    /// whole folder.
    private static func filesOfFolder(_ source: ClientPath) throws -> [DownloadFile] {
        let shown = source.shown
        var files: [DownloadFile] = []
        do {
            let parent = try source.openBase()
            defer { parent.release() }
            let folder = try parent.child(source.tail[0])
            defer { folder.release() }
            try folder.walk(failed: { throw $0 }) { _, _, relative, info in
                guard info.st_mode & S_IFMT == S_IFREG else {
                    throw StashError.invalidArgument("'\(relative.prefix(200))' under \(shown) is not a regular file or a folder (symlinks are not followed); nothing was adopted")
                }
                guard files.count < BundleRules.maxFiles else {
                    throw StashError.invalidArgument("path \(shown) holds more than \(BundleRules.maxFiles) files, the limit of a bundle")
                }
                guard relative.utf8.count <= BundleRules.maxPathBytes, !relative.hasSuffix(".part") else {
                    throw StashError.invalidArgument("'\(relative.prefix(200))' under \(shown) cannot be a bundle file (over \(BundleRules.maxPathBytes) bytes, or ending in .part)")
                }
                let size = Int64(info.st_size)
                files.append(DownloadFile(url: "", path: relative, size: size, downloadedBytes: size, done: true))
            }
        } catch let error as SystemCallError {
            throw StashError.invalidArgument("path \(shown) cannot be read: \(error)")
        }
        guard !files.isEmpty else { throw StashError.invalidArgument("path \(shown) holds no files") }
        return files.sorted { $0.path < $1.path }
    }
}
