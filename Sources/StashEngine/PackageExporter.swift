import Foundation
import StashCore
import StashHLS
import StashKeys

/// Copies an HLS download's package to a folder a player opens without the daemon: the
/// playlists and segments as they are with each key written next to the playlist that names
/// it, or (`decrypt`) clear segments and playlists without EXT-X-KEY, and the side-loaded text
/// tracks beside them. Reads the package's own playlists, so it needs nothing but the folder
/// and the key store.
struct PackageExporter: Sendable {
    let keys: KeyStore
    let asset: String
    let folder: String
    /// The package's playlists, `master.m3u8` first, relative to `folder`.
    let playlists: [String]
    /// The key store id of each key path (a licence key is stored under its key id).
    let keyIDs: [String: String]
    /// The side-loaded text tracks' files (`subtitles/es.vtt`), relative to `folder`: a player
    /// is given them on its own (`mpv --sub-file`), so they are copied as they are.
    let textTrackPaths: [String]

    func export(to dir: String, decrypt: Bool) throws -> ExportResult {
        guard dir.hasPrefix("/") else {
            throw StashError.invalidArgument("dir '\(dir.prefix(200))' must be an absolute path")
        }
        let created = try prepare(dir)
        do {
            return try write(to: dir, decrypt: decrypt)
        } catch {
            // A half-written copy would look playable and is not: take it back.
            if created {
                try? FileManager.default.removeItem(atPath: dir)
            } else {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
                    try? FileManager.default.removeItem(atPath: dir + "/" + name)
                }
            }
            throw error
        }
    }

    private func write(to dir: String, decrypt: Bool) throws -> ExportResult {
        var files = 0
        var bytes: Int64 = 0
        var keyCache: [String: [UInt8]] = [:]
        func key(_ path: String) throws -> [UInt8] {
            if let known = keyCache[path] { return known }
            let stored: [UInt8]?
            do {
                stored = try keys.read(asset: asset, keyID: keyIDs[path] ?? path)
            } catch {
                throw StashError(.internal, "cannot read the key \(path) of '\(asset)': \(error)")
            }
            guard let stored else {
                throw StashError(.failedPrecondition, "the key \(path) of '\(asset)' is not in the key store; `stash verify --repair` fetches it again")
            }
            keyCache[path] = stored
            return stored
        }
        func emit(_ data: [UInt8], _ relative: String, mode: mode_t = 0o644) throws {
            try write(data, to: dir + "/" + relative, mode: mode)
            files += 1
            bytes += Int64(data.count)
        }
        for (index, playlistPath) in playlists.enumerated() {
            let text = try readText(playlistPath)
            guard index > 0 else {
                // The master names only local playlists, which keep their paths.
                try emit(Array(text.utf8), playlistPath)
                continue
            }
            let local: LocalMediaPlaylist
            do {
                local = try LocalMediaPlaylist.parse(text)
            } catch {
                throw StashError(.failedPrecondition, "the package playlist \(folder)/\(playlistPath) is damaged (\(error)); `stash verify --repair` rewrites it")
            }
            let playlistFolder = (playlistPath as NSString).deletingLastPathComponent
            func inFolder(_ relative: String) -> String { playlistFolder.isEmpty ? relative : playlistFolder + "/" + relative }
            try emit(Array((decrypt ? LocalMediaPlaylist.decryptedText(text) : text).utf8), playlistPath)
            for piece in local.initSections + local.segments {
                var data = try readFile(inFolder(piece.path))
                if decrypt, let keyPath = piece.keyPath, let iv = piece.iv {
                    do {
                        data = try SegmentCipher.decrypt(data, key: try key(inFolder(keyPath)), iv: iv)
                    } catch let error as StashError {
                        throw error
                    } catch {
                        throw StashError(.failedPrecondition, "cannot decrypt \(folder)/\(inFolder(piece.path)): \(error)")
                    }
                }
                try emit(data, inFolder(piece.path))
            }
            if !decrypt {
                for keyPath in local.keyPaths {
                    try emit(try key(inFolder(keyPath)), inFolder(keyPath), mode: 0o600)
                }
            }
        }
        for path in textTrackPaths {
            try emit(try readFile(path), path)
        }
        return ExportResult(dir: dir, files: files, bytes: bytes, decrypted: decrypt)
    }

    /// The folder may not exist yet, or be empty: an export never mixes with other files.
    /// Returns whether it was created here.
    private func prepare(_ dir: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StashError.invalidArgument("dir '\(dir)' exists and is not a folder")
            }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            guard contents.isEmpty else {
                throw StashError.invalidArgument("dir '\(dir)' is not empty (\(contents.count) entries); export into a new or empty folder")
            }
            return false
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw StashError.invalidArgument("cannot create dir '\(dir)': \(error.localizedDescription)")
        }
        return true
    }

    private func readText(_ relative: String) throws -> String {
        String(decoding: try readFile(relative), as: UTF8.self)
    }

    private func readFile(_ relative: String) throws -> [UInt8] {
        let path = folder + "/" + relative
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StashError(.failedPrecondition, "\(path) is missing or unreadable; `stash verify --repair` fetches it again")
        }
        return [UInt8](data)
    }

    private func write(_ data: [UInt8], to path: String, mode: mode_t) throws {
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            let fd = try SystemCallError.check("open", path) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) }
            defer { SystemCallError.close(fd) }
            try DurableFile.writeAll(data, to: fd, path: path)
        } catch let error as SystemCallError {
            throw StashError(.internal, "cannot write \(path): \(error)")
        } catch {
            throw StashError(.internal, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
