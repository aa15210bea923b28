import StashCore
import StashKeys

/// The AES-128 keys of an HLS package being replaced. The new copy's keys are sealed beside
/// the old copy's, in the download's own entry of the key store, under their ids with
/// `prefix` before them: the old copy's segments keep their keys until the exchange, and a
/// replace that fails leaves them as they were. Once the folders are exchanged, each new key
/// is sealed again under its own id (an entry is bound to its id, so it is read and written,
/// not renamed) and the prefixed entry goes; the old copy's keys the new one has no use for go
/// too. Each step can be made again, so a start that finds the record of the new copy with
/// prefixed entries left makes them again.
enum ReplacementKeys {
    static let prefix = "replacing:"

    /// The key store ids of a package's keys at `paths`: a licence's key under its key id
    /// (`Download.licenseKeyStoreID`), one named by several playlists once; any other at its path.
    static func storeIDs(paths: [String], licenseKeyIDs: [String: String]) -> [String] {
        var ids: [String] = []
        for path in paths {
            let id = licenseKeyIDs[path].map(Download.licenseKeyStoreID) ?? path
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// The key store ids of `download`'s keys.
    static func storeIDs(of download: Download) -> [String] {
        storeIDs(paths: download.hlsKeys, licenseKeyIDs: download.licenseKeyIDs)
    }

    /// Seals the new copy's keys under their own ids (`paths`: key store ids, `storeIDs`);
    /// `stale`: the old copy's key store ids, those not among `paths` deleted.
    static func promote(_ keys: KeyStore, asset: String, paths: [String], stale: [String] = []) throws {
        for path in paths {
            guard let key = try keys.read(asset: asset, keyID: prefix + path) else { continue }
            try keys.write(asset: asset, keyID: path, key: key)
            try keys.delete(asset: asset, keyID: prefix + path)
        }
        let kept = Set(paths)
        for path in stale where !kept.contains(path) { try keys.delete(asset: asset, keyID: path) }
    }

    /// Deletes the new copy's keys of a replace that ended without its exchange.
    static func discard(_ keys: KeyStore, asset: String, paths: [String]) {
        for path in paths { try? keys.delete(asset: asset, keyID: prefix + path) }
    }
}
