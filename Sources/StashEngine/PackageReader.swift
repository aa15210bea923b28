import Foundation
import StashCore
import StashHLS
import StashKeys

/// Reads an HLS download's package from its asset folder, every file through the folder's
/// descriptor and never through a symlink, with the sealed keys that decrypt its segments:
/// what both exports read (the folder copy and the file). Folders it opened and keys it read
/// are kept for the next files until `release`.
final class PackageReader {
    let keys: KeyStore
    let asset: String
    /// For messages.
    let folder: String
    /// The key store id of each key path (a licence key is stored under its key id).
    let keyIDs: [String: String]
    private let package: FolderHandle
    private var folders: [String: FolderHandle] = [:]
    private var keyCache: [String: [UInt8]] = [:]

    /// Opens `folder`; FAILED_PRECONDITION when it cannot be opened as a folder (missing, a
    /// symlink).
    init(keys: KeyStore, asset: String, folder: String, keyIDs: [String: String]) throws {
        self.keys = keys
        self.asset = asset
        self.folder = folder
        self.keyIDs = keyIDs
        do {
            package = try FolderHandle.open(folder, followingSymlink: false)
        } catch {
            throw StashError(.failedPrecondition, "\(folder) cannot be opened as a folder (\(error)); `stash verify --repair` fetches the package again")
        }
    }

    func release() {
        for opened in folders.values { opened.release() }
        folders = [:]
        package.release()
    }

    /// The bytes of the package's file `relative`; FAILED_PRECONDITION naming it when it is
    /// missing, unreadable or reached through a symlink.
    func read(_ relative: String) throws -> [UInt8] {
        try reaching(relative) { parent, name in try parent.read(name) }
    }

    /// The size of the package's file `relative`, as `read` would find it.
    func size(of relative: String) throws -> Int64 {
        try reaching(relative) { parent, name in Int64(try parent.status(name).st_size) }
    }

    func text(_ relative: String) throws -> String {
        String(decoding: try read(relative), as: UTF8.self)
    }

    /// A media playlist of the package, parsed; FAILED_PRECONDITION when stash did not write it so.
    func mediaPlaylist(_ relative: String) throws -> LocalMediaPlaylist {
        let text = try self.text(relative)
        do {
            return try LocalMediaPlaylist.parse(text)
        } catch {
            throw StashError(.failedPrecondition, "the package playlist \(folder)/\(relative) is damaged (\(error)); `stash verify --repair` rewrites it")
        }
    }

    /// The key at `path` (relative to the package folder) from the key store.
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

    /// `data`, the bytes of `piece` of the playlist in `playlistFolder`, decrypted when the
    /// playlist says it is encrypted.
    func decrypted(_ data: [UInt8], of piece: LocalSegment, in playlistFolder: String) throws -> [UInt8] {
        guard let keyPath = piece.keyPath, let iv = piece.iv else { return data }
        let path = Self.join(playlistFolder, piece.path)
        let key = try self.key(Self.join(playlistFolder, keyPath))
        do {
            return try SegmentCipher.decrypt(data, key: key, iv: iv)
        } catch {
            throw StashError(.failedPrecondition, "cannot decrypt \(folder)/\(path): \(error)")
        }
    }

    /// `relative` inside `folder` ("" for the package's own folder).
    static func join(_ folder: String, _ relative: String) -> String {
        folder.isEmpty ? relative : folder + "/" + relative
    }

    private func reaching<T>(_ relative: String, _ body: (FolderHandle, String) throws -> T) throws -> T {
        do {
            var components = relative.split(separator: "/").map(String.init)
            guard let name = components.popLast() else { throw SystemCallError(call: "open", path: folder, errnoCode: EISDIR) }
            let key = components.joined(separator: "/")
            let parent: FolderHandle
            if key.isEmpty {
                parent = package
            } else if let opened = folders[key] {
                parent = opened
            } else {
                parent = try package.descend(components)
                folders[key] = parent
            }
            return try body(parent, name)
        } catch {
            throw StashError(.failedPrecondition, "\(folder)/\(relative) is missing or unreadable (\(error)); `stash verify --repair` fetches it again")
        }
    }
}
