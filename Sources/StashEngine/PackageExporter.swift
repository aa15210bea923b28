import Foundation
import StashCore
import StashDASH
import StashHLS
import StashKeys

/// Copies an HLS (or DASH) download's package to a folder a player opens without the daemon: the
/// playlists and segments as they are with each key written next to the playlist that names
/// it, or (`decrypt`) clear segments and playlists without EXT-X-KEY, and the side-loaded text
/// tracks beside them. Reads the package's own playlists, so it needs nothing but the folder
/// and the key store. The package is read from the asset folder's descriptor and the copy
/// written from the target's, neither through a symlink; the target is held to
/// `DataDirGuard`'s rule (nothing is exported into the data dir).
struct PackageExporter: Sendable {
    let keys: KeyStore
    let dataDir: String
    let asset: String
    let folder: String
    /// The package's playlists, `master.m3u8` first, relative to `folder`.
    let playlists: [String]
    /// The key store id of each key path (a licence key is stored under its key id).
    let keyIDs: [String: String]
    /// The side-loaded text tracks' files (`subtitles/es.vtt`), relative to `folder`: a player
    /// is given them on its own (`mpv --sub-file`), so they are copied as they are.
    let textTrackPaths: [String]
    /// A DASH package's segments, relative to `folder`: its MPD (the one playlist) names them,
    /// so they are copied as they are. Empty for HLS, whose playlists list their segments.
    var dashPaths: [String] = []

    func export(to dir: String, decrypt: Bool) throws -> ExportResult {
        let paths = DataDirGuard(dataDir: dataDir)
        let target = try paths.resolve(dir, field: "dir", followingLast: true)
        try paths.refuse(target, field: "dir")
        let package = try PackageReader(keys: keys, asset: asset, folder: folder, keyIDs: keyIDs)
        defer { package.release() }
        let (output, created) = try prepare(target)
        defer { output.release() }
        let writer = ExportWriter(root: output)
        defer { writer.release() }
        do {
            return try write(from: package, to: writer, dir: dir, decrypt: decrypt)
        } catch {
            // A half-written copy would look playable and is not: take it back.
            if let created, let base = try? target.openBase() {
                base.removeEntry(created)
                base.release()
            } else {
                for name in (try? output.names()) ?? [] { output.removeEntry(name) }
            }
            throw error
        }
    }

    private func write(from package: PackageReader, to writer: ExportWriter, dir: String, decrypt: Bool) throws -> ExportResult {
        var files = 0
        var bytes: Int64 = 0
        func emit(_ data: [UInt8], _ relative: String, mode: mode_t = 0o644) throws {
            try writer.write(data, to: relative, mode: mode)
            files += 1
            bytes += Int64(data.count)
        }
        for (index, playlistPath) in playlists.enumerated() {
            let text = try package.text(playlistPath)
            guard index > 0 else {
                // The master names only local playlists, which keep their paths; a clear copy
                // of a DASH package's MPD says nothing of the protection it no longer has.
                let clear = decrypt && !dashPaths.isEmpty ? DASHPackage.clearManifest(text) : text
                try emit(Array(clear.utf8), playlistPath)
                continue
            }
            let local = try package.mediaPlaylist(playlistPath)
            let playlistFolder = (playlistPath as NSString).deletingLastPathComponent
            try emit(Array((decrypt ? LocalMediaPlaylist.decryptedText(text) : text).utf8), playlistPath)
            for piece in local.initSections + local.segments {
                let path = PackageReader.join(playlistFolder, piece.path)
                var data = try package.read(path)
                if decrypt { data = try package.decrypted(data, of: piece, in: playlistFolder) }
                try emit(data, path)
            }
            if !decrypt {
                for keyPath in local.keyPaths {
                    let path = PackageReader.join(playlistFolder, keyPath)
                    try emit(try package.key(path), path, mode: 0o600)
                }
            }
        }
        let decryption = decrypt && !keyIDs.isEmpty ? CENCDecryption(reader: package) : nil
        for path in dashPaths {
            let data = try package.read(path)
            try emit(try decryption?.clear(data, path: path) ?? data, path)
        }
        for path in textTrackPaths {
            try emit(try package.read(path), path)
        }
        return ExportResult(dir: dir, files: files, bytes: bytes, decrypted: decrypt)
    }

    /// The folder may not exist yet, or be empty: an export never mixes with other files.
    /// Returns it open, and the entry made in `target.base` when it was created here.
    private func prepare(_ target: ClientPath) throws -> (FolderHandle, created: String?) {
        if target.tail.isEmpty {
            guard let info = try? SystemCallError.status(target.base), info.st_mode & S_IFMT == S_IFDIR else {
                throw StashError.invalidArgument("dir \(target.shown) exists and is not a folder")
            }
            let folder = try FolderHandle.open(target.base, followingSymlink: false)
            let contents = (try? folder.names()) ?? []
            guard contents.isEmpty else {
                folder.release()
                throw StashError.invalidArgument("dir \(target.shown) is not empty (\(contents.count) entries); export into a new or empty folder")
            }
            return (folder, nil)
        }
        do {
            let base = try target.openBase()
            defer { base.release() }
            return (try base.descend(target.tail, creating: true), target.tail[0])
        } catch {
            throw StashError.invalidArgument("cannot create dir \(target.shown): \(error)")
        }
    }
}
