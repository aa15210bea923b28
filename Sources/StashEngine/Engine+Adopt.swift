import Foundation
import StashCore

/// Adopt: a file or folder already on disk becomes a COMPLETED download, so a registry rebuilt
/// after a loss (or files fetched by other means) is not fetched again.
extension Engine {
    /// Takes `path` (absolute; a regular file or a folder of regular files, no symlink in it)
    /// into `assets/<id>/`, moved or, with `link`, hard-linked. A file with a `url` is a
    /// single-file download of that URL (named as stash names it); without one, and a folder,
    /// is a bundle. `sha256` is checked first when given.
    public func adopt(path: String, id: String, url: String, sha256: String, link: Bool) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        if entries[id] != nil {
            throw StashError(.alreadyExists, "download '\(id)' already exists; adopt under another id")
        }
        guard path.hasPrefix("/") else { throw StashError.invalidArgument("path '\(path.prefix(200))' must be an absolute path") }
        guard let info = try SystemCallError.status(path, followingSymlink: false) else {
            throw StashError.invalidArgument("path '\(path.prefix(200))': nothing is there")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else {
            throw StashError.invalidArgument("path '\(path.prefix(200))' is not a regular file or a folder (symlinks are not followed)")
        }
        let isFile = kind == S_IFREG
        if !url.isEmpty {
            guard isFile else { throw StashError.invalidArgument("url applies to a file; a folder is adopted as a bundle") }
            try DownloadRequestRules.validateURI(url)
        }
        let digest = try DownloadRequestRules.normalizeSHA256(sha256)
        if !digest.isEmpty {
            guard isFile else { throw StashError.invalidArgument("sha256 applies to a file, not to a folder") }
            var buffer: [UInt8] = []
            let actual = try await Task.detached { try AssetScanner.sha256(of: path, buffer: &buffer) }.value
            guard actual == digest else {
                throw StashError(.invalidArgument, "sha256 of \(path) is \(actual), not \(digest); nothing was adopted")
            }
        }
        let single = isFile && !url.isEmpty
        let name = single ? AssetLayout.fileName(from: url) : AssetLayout.safeFileName((path as NSString).lastPathComponent)
        let files = isFile
            ? [DownloadFile(url: url, path: name, size: Int64(info.st_size), sha256: digest, downloadedBytes: Int64(info.st_size), done: true)]
            : try Self.filesOfFolder(path)
        let folder = layout.assetFolder(id: id)
        if (try? SystemCallError.status(folder, followingSymlink: false)) != nil {
            throw StashError(.alreadyExists, "\(folder) exists though no download owns it; `stash purge` deletes it, or adopt under another id")
        }
        try Self.place(path, isFile: isFile, files: files, into: folder, name: name, link: link)

        let total = files.saturatingSum(\.downloadedBytes)
        let download = Download(
            id: id, uri: single ? url : "", title: (path as NSString).lastPathComponent, state: .completed,
            downloadedBytes: total, totalBytes: total,
            assetPath: single ? layout.relativeFilePath(id: id, uri: url) : layout.relativeFolderPath(id: id),
            stateReason: "adopted from \(path)", completedAt: clock.now(), sha256: digest, isBundle: !single, files: files)
        do {
            try await insert(download)
        } catch {
            // Not recorded: the files go back where they were, as far as they can.
            if !link { try? FileManager.default.moveItem(atPath: isFile ? folder + "/" + name : folder, toPath: path) }
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        followDiskWatch(download, from: .notDownloaded)
        logger.info("download adopted", metadata: ["id": "\(id)", "files": "\(files.count)", "bytes": "\(total)", "linked": "\(link)"])
        return publicView(download)
    }

    /// Every regular file under `folder`, by relative path; a symlink or another kind of entry
    /// refuses the whole folder.
    private static func filesOfFolder(_ folder: String) throws -> [DownloadFile] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            throw StashError.invalidArgument("path '\(folder.prefix(200))' cannot be read")
        }
        var files: [DownloadFile] = []
        while let relative = walker.nextObject() as? String {
            let full = folder + "/" + relative
            guard let info = try SystemCallError.status(full, followingSymlink: false) else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                continue
            case S_IFREG:
                guard files.count < BundleRules.maxFiles else {
                    throw StashError.invalidArgument("path '\(folder.prefix(200))' holds more than \(BundleRules.maxFiles) files, the limit of a bundle")
                }
                guard relative.utf8.count <= BundleRules.maxPathBytes, !relative.hasSuffix(".part") else {
                    throw StashError.invalidArgument("'\(relative.prefix(200))' under \(folder.prefix(200)) cannot be a bundle file (over \(BundleRules.maxPathBytes) bytes, or ending in .part)")
                }
                let size = Int64(info.st_size)
                files.append(DownloadFile(url: "", path: relative, size: size, downloadedBytes: size, done: true))
            default:
                throw StashError.invalidArgument("'\(full.prefix(200))' is not a regular file or a folder (symlinks are not followed); nothing was adopted")
            }
        }
        guard !files.isEmpty else { throw StashError.invalidArgument("path '\(folder.prefix(200))' holds no files") }
        return files.sorted { $0.path < $1.path }
    }

    /// Moves (rename, or copy and delete across file systems) or hard-links the files into
    /// the asset folder.
    private static func place(_ path: String, isFile: Bool, files: [DownloadFile], into folder: String, name: String, link: Bool) throws {
        let manager = FileManager.default
        // What was moved so far, to be put back if a later file cannot be.
        var placed: [(source: String, target: String)] = []
        func undo() {
            if !link {
                // moveItem copies back across file systems, where a rename cannot.
                for (source, target) in placed.reversed() { try? manager.moveItem(atPath: target, toPath: source) }
            }
            // Links only, or emptied by the moves back: nothing of the user's is lost here.
            if link || placed.allSatisfy({ (try? SystemCallError.status($0.target, followingSymlink: false)) == nil }) {
                try? manager.removeItem(atPath: folder)
            }
        }
        do {
            if !link, !isFile {
                try manager.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                do {
                    try SystemCallError.check("rename", path) { rename(path, folder) }
                } catch let error as SystemCallError where error.errnoCode == EXDEV {
                    try manager.copyItem(atPath: path, toPath: folder)
                    try manager.removeItem(atPath: path)
                }
                return
            }
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let pairs = isFile ? [(path, folder + "/" + name)] : files.map { (path + "/" + $0.path, folder + "/" + $0.path) }
            for (source, target) in pairs {
                placed.append((source, target))
                try manager.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if link {
                    try SystemCallError.check("link", source) { Glibc.link(source, target) }
                } else {
                    do {
                        try SystemCallError.check("rename", source) { rename(source, target) }
                    } catch let error as SystemCallError where error.errnoCode == EXDEV {
                        try manager.copyItem(atPath: source, toPath: target)
                        try manager.removeItem(atPath: source)
                    }
                }
            }
        } catch let error as SystemCallError where link && error.errnoCode == EXDEV {
            undo()
            throw StashError.invalidArgument("\(path) is on another file system than the data dir, where a hard link cannot go; adopt it without link to move it")
        } catch {
            undo()
            throw StashError(.internal, "could not take \(path) into \(folder): \(error)")
        }
    }
}
