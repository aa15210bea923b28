import StashCrypto
import Foundation
import StashCore
import Synchronization

/// Content keys (HLS AES-128 keys and the like) sealed at rest under a per-data-dir master key.
///
/// Layout under `directory` (`<data-dir>/keys`, 0700):
/// - `master.key`: 32 random bytes, 0600, created once and never replaced;
/// - `<asset>/<hex sha256 of key id>.key`: one sealed entry per (asset, key id), 0600, in a
///   0700 folder per asset. The key id is hashed so that any id (usually a key URI) makes a
///   safe, fixed-length file name.
///
/// An entry is a version byte followed by an AES-256-GCM combined box (nonce, ciphertext,
/// tag) whose authenticated data names the asset and key id, so an entry copied to another
/// place fails to open instead of yielding the wrong key.
///
/// Every operation is serialized by a lock, so one instance can be shared between tasks.
/// Failed system calls throw `SystemCallError`; everything else throws `KeysError`. No error
/// or description ever contains key bytes.
package final class KeyStore: Sendable {
    /// The keys folder this store manages.
    package let directory: String
    /// Immutable after init; every other piece of state is on disk, guarded by `lock`.
    private let masterKey: [UInt8]
    /// Held for the whole of each operation on the files, so calls from several threads are
    /// serialized; it guards no value of its own.
    private let lock = Mutex(())

    static let masterKeyFileName = "master.key"
    static let masterKeySize = 32
    static let formatVersion: UInt8 = 1
    /// Far above any sealed key (1 + 12 + key + 16 bytes); a bigger file is not ours.
    static let maximumEntrySize = 64 * 1024
    static let maximumKeySize = maximumEntrySize - 1 - 12 - 16

    /// Opens the store in `directory`, creating the folder (0700) and the master key (0600)
    /// on first use. A folder that exists with looser permissions is tightened to 0700.
    ///
    /// - Parameter directory: `<data-dir>/keys`; its parent must exist.
    /// - Throws: `KeysError.Code.invalidMasterKey` naming the path when `master.key` exists
    ///   but is not a 32-byte regular file. It is never replaced, since a new master key
    ///   would make every sealed entry unreadable.
    package init(directory: String) throws {
        self.directory = directory
        try KeyFiles.makeDirectory(directory, mode: 0o700)
        self.masterKey = try Self.loadOrCreateMasterKey(in: directory)
    }

    // MARK: - Entries

    /// Seals `key` and stores it as the entry for (`asset`, `keyID`), replacing any earlier
    /// entry atomically: a reader sees the old key or the new one, never a partial file.
    package func write(asset: String, keyID: String, key: [UInt8]) throws {
        try Self.validate(asset: asset)
        guard !key.isEmpty, key.count <= Self.maximumKeySize else {
            throw KeysError(
                .invalidKey,
                "a key for asset '\(asset)' must be 1 to \(Self.maximumKeySize) bytes, got \(key.count)")
        }
        let sealed = try seal(key, asset: asset, keyID: keyID)
        let assetPath = path(ofAsset: asset)
        let name = Self.entryFileName(keyID: keyID)
        try withLock {
            if try KeyFiles.makeDirectory(assetPath, mode: 0o700) {
                try KeyFiles.syncDirectory(directory)
            }
            let temporary = assetPath + "/" + KeyFiles.temporaryName(for: name)
            do {
                try KeyFiles.writeNewFile(temporary, sealed)
                try SystemCallError.check("rename", temporary) { rename(temporary, assetPath + "/" + name) }
            } catch {
                _ = try? KeyFiles.removeFile(temporary)
                throw error
            }
            try KeyFiles.syncDirectory(assetPath)
        }
    }

    /// The key stored for (`asset`, `keyID`), or nil when there is none.
    /// - Throws: `KeysError.Code.unsealFailed` naming the entry when the file is tampered
    ///   with, was copied from another entry, or was sealed under another master key.
    package func read(asset: String, keyID: String) throws -> [UInt8]? {
        try Self.validate(asset: asset)
        let path = entryPath(asset: asset, keyID: keyID)
        let contents = try withLock {
            try KeyFiles.readFile(path, limit: Self.maximumEntrySize) { size in
                KeysError(
                    .unsealFailed,
                    "the key entry for asset '\(asset)', key id '\(keyID)' (\(path)) is \(size) bytes, "
                        + "more than any sealed key; it is not a key entry")
            }
        }
        guard let contents else { return nil }
        return try unseal(contents, asset: asset, keyID: keyID, path: path)
    }

    /// Whether an entry exists for (`asset`, `keyID`). Does not unseal it; false for an
    /// invalid asset id.
    package func exists(asset: String, keyID: String) -> Bool {
        guard (try? Self.validate(asset: asset)) != nil else { return false }
        let path = entryPath(asset: asset, keyID: keyID)
        return withLock { access(path, F_OK) == 0 }
    }

    /// Removes the entry for (`asset`, `keyID`) if there is one, and the asset's folder when
    /// that was its last entry (so `assets()` no longer lists it).
    package func delete(asset: String, keyID: String) throws {
        try Self.validate(asset: asset)
        let assetPath = path(ofAsset: asset)
        let path = entryPath(asset: asset, keyID: keyID)
        try withLock {
            guard try KeyFiles.removeFile(path) else { return }
            try KeyFiles.syncDirectory(assetPath)
            if try KeyFiles.removeDirectoryIfEmpty(assetPath) {
                try KeyFiles.syncDirectory(directory)
            }
        }
    }

    /// Removes every entry of `asset` (and leftovers of interrupted writes) and its folder.
    /// An asset without keys is not an error.
    package func deleteAll(asset: String) throws {
        try Self.validate(asset: asset)
        let assetPath = path(ofAsset: asset)
        try withLock {
            guard let names = try KeyFiles.listDirectory(assetPath) else { return }
            for name in names {
                try KeyFiles.removeFile(assetPath + "/" + name)
            }
            try SystemCallError.check("rmdir", assetPath) { rmdir(assetPath) }
            try KeyFiles.syncDirectory(directory)
        }
    }

    /// The asset ids that have at least one entry, sorted; for reconciling the store with
    /// the registry (keys of deleted downloads).
    package func assets() throws -> [String] {
        try withLock {
            let names = try KeyFiles.listDirectory(directory) ?? []
            return try names.filter { name in
                guard Self.isValid(asset: name) else { return false }
                let assetPath = directory + "/" + name
                guard KeyFiles.isDirectory(assetPath) else { return false }
                let entries = try KeyFiles.listDirectory(assetPath) ?? []
                return entries.contains { !$0.hasPrefix(".") && $0.hasSuffix(".key") }
            }
        }
    }

    // MARK: - Sealing

    private func seal(_ key: [UInt8], asset: String, keyID: String) throws -> [UInt8] {
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(key, key: masterKey, authenticating: Self.authenticatedData(asset: asset, keyID: keyID))
        } catch {
            throw KeysError(.cipherFailed, "sealing the key for asset '\(asset)' failed: \(error)")
        }
        return [Self.formatVersion] + sealed
    }

    private func unseal(_ contents: [UInt8], asset: String, keyID: String, path: String) throws -> [UInt8] {
        let entry = "the key entry for asset '\(asset)', key id '\(keyID)' (\(path))"
        guard let version = contents.first else {
            throw KeysError(.unsealFailed, "\(entry) is empty and could not be unsealed")
        }
        guard version == Self.formatVersion else {
            throw KeysError(
                .unsupportedFormat,
                "\(entry) has format version \(version); this stash reads version \(Self.formatVersion)")
        }
        do {
            return try AESGCM.open(contents[1...], key: masterKey, authenticating: Self.authenticatedData(asset: asset, keyID: keyID))
        } catch {
            // The crypto error says nothing useful beyond "authentication failed"; name the entry.
            throw KeysError(
                .unsealFailed,
                "\(entry) could not be unsealed: it was modified, copied from another entry, "
                    + "or sealed under a different master key")
        }
    }

    /// Binds an entry to its place. The asset id cannot contain NUL, so the encoding is unambiguous.
    static func authenticatedData(asset: String, keyID: String) -> [UInt8] {
        Array("stash-key-v1\0\(asset)\0\(keyID)".utf8)
    }

    // MARK: - Master key

    private static func loadOrCreateMasterKey(in directory: String) throws -> [UInt8] {
        let path = directory + "/" + masterKeyFileName
        if let key = try readMasterKey(path) { return key }
        // Written under a temporary name and linked into place, so a crash never leaves a
        // short master.key behind (which would then be refused forever), and link(2), like
        // O_EXCL, fails rather than replace a master key another process created meanwhile.
        let temporary = directory + "/" + KeyFiles.temporaryName(for: masterKeyFileName)
        let bytes: [UInt8]
        do {
            bytes = try SecureRandom.bytes(masterKeySize)
        } catch {
            throw KeysError(.cipherFailed, "no random bytes for a new master key in \(directory): \(error)")
        }
        do {
            try KeyFiles.writeNewFile(temporary, bytes)
            try SystemCallError.check("link", path) { link(temporary, path) }
        } catch {
            _ = try? KeyFiles.removeFile(temporary)
            // Another process created it between our read and our link: use theirs.
            if let error = error as? SystemCallError, error.call == "link", error.errnoCode == EEXIST,
                let key = try readMasterKey(path)
            {
                return key
            }
            throw error
        }
        try KeyFiles.removeFile(temporary)
        try KeyFiles.syncDirectory(directory)
        return bytes
    }

    private static func readMasterKey(_ path: String) throws -> [UInt8]? {
        let advice = "it is never replaced automatically because every sealed key depends on it; "
            + "restore it from a backup, or remove the whole keys folder to start over without the stored keys"
        let bytes: [UInt8]?
        do {
            bytes = try KeyFiles.readFile(path, limit: masterKeySize) { size in
                KeysError(.invalidMasterKey, "master key file \(path) is \(size) bytes, expected \(masterKeySize); \(advice)")
            }
        } catch let error as SystemCallError where error.errnoCode == EISDIR || error.errnoCode == ELOOP {
            throw KeysError(.invalidMasterKey, "master key file \(path) is not a regular file; \(advice)")
        }
        guard let bytes else { return nil }
        guard bytes.count == masterKeySize else {
            throw KeysError(.invalidMasterKey, "master key file \(path) is \(bytes.count) bytes, expected \(masterKeySize); \(advice)")
        }
        var info = stat()
        try SystemCallError.check("stat", path) { stat(path, &info) }
        if info.st_mode & 0o077 != 0 {
            try SystemCallError.check("chmod", path) { chmod(path, 0o600) }
        }
        return bytes
    }

    // MARK: - Names

    /// The caller validates asset ids already; this is the last line before a path is built.
    static func validate(asset: String) throws {
        guard isValid(asset: asset) else {
            throw KeysError(
                .invalidAssetID,
                "asset id \(String(reflecting: asset)) is not valid: it must be 1 to 255 characters "
                    + "from [A-Za-z0-9._-] and must not start with '.'")
        }
    }

    static func isValid(asset: String) -> Bool {
        let bytes = Array(asset.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    static func entryFileName(keyID: String) -> String {
        SHA256.hex(SHA256.hash(Array(keyID.utf8))) + ".key"
    }

    private func path(ofAsset asset: String) -> String { directory + "/" + asset }

    /// The file of the entry for (`asset`, `keyID`); for tests and diagnostics.
    func entryPath(asset: String, keyID: String) -> String {
        path(ofAsset: asset) + "/" + Self.entryFileName(keyID: keyID)
    }

    private func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) in try body() }
    }
}
