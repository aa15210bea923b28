import Logging
import CLinux
import Foundation
import StashCore
import StashKeys

/// Puts a replacement's new copy over the old one: rename(2) replaces the old name in one step
/// (a reader sees the old file or the new one, never neither), then the folder is fsynced so
/// the rename survives a crash before the registry is told. The new copy's data is already
/// durable: the fetch renamed it to its temporary name only after its fdatasync.
enum ReplacementSwap {
    static func swap(in folder: String, temporary: String, final: String) throws {
        let handle = try FolderHandle.open(folder, followingSymlink: false)
        defer { handle.release() }
        let descriptor = handle.descriptor
        try SystemCallError.check("rename", folder + "/" + final) { renameat(descriptor, temporary, descriptor, final) }
        try handle.sync()
    }

    /// At start, before the files are measured: a record committed with its new copy
    /// (`EngineState.swappingReason`) whose copy is still under its temporary name was stopped
    /// before the rename, which is made now (the copy is whole and durable). Without the
    /// temporary name the rename was made. A folder copy is finished by `FolderSwap`.
    static func finishAtStart(_ downloads: [Download], layout: AssetLayout, keys: KeyStore, logger: Logger) {
        for download in downloads {
            do {
                try finishAtStart(download, layout: layout, keys: keys)
            } catch {
                // The start's file check finds the old copy under a record of the new one and says so.
                logger.error("a replace's rename could not be finished", metadata: ["id": "\(download.id)", "error": "\(error)"])
            }
        }
    }

    private static func finishAtStart(_ download: Download, layout: AssetLayout, keys: KeyStore) throws {
        guard download.state == .completed, download.stateReason == EngineState.swappingReason, let file = download.files.first else { return }
        if Replacement.replacesFolder(download) {
            var failure: Error?
            try FolderSwap.finishAtStart(assetsDir: layout.assetsDir, id: download.id) {
                do {
                    try ReplacementKeys.promote(keys, asset: download.id, paths: ReplacementKeys.storeIDs(of: download))
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            return
        }
        let folder = layout.assetFolder(id: download.id)
        let temporary = file.path + Replacement.suffix
        let handle = try FolderHandle.open(folder, followingSymlink: false)
        defer { handle.release() }
        guard try handle.statusIfPresent(temporary) != nil else { return }
        try swap(in: folder, temporary: temporary, final: file.path)
    }

    /// Removes what a failed or cancelled replacement left: its part file or its whole copy.
    static func discard(in folder: String, temporary: String) {
        guard let handle = try? FolderHandle.open(folder, followingSymlink: false) else { return }
        defer { handle.release() }
        handle.removeEntry(temporary + ".part")
        handle.removeEntry(temporary)
    }
}
