import CLinux
import Foundation
import StashCore

/// Puts the new copy of a download that has a folder of files (a bundle, a file with text
/// tracks, an HLS package) in place of the old one. The new copy is fetched whole into a
/// sibling of the asset folder, `assets/.replacing-<id>` (no id starts with '.', so no
/// download owns that name); then renameat2 with RENAME_EXCHANGE swaps the two folders in one
/// step: a reader of `assets/<id>` finds the whole old copy or the whole new one, never a mix
/// and never nothing. The old copy, now under the sibling's name, is deleted.
///
/// After an exchange both names exist, so the names alone cannot tell a restart which folder
/// is which: a marker file, made in the new copy (and made durable) before the record of the
/// new copy is committed, travels with it. At start, a record of the new copy finds the marker
/// in the asset folder (exchanged: the marker and the sibling go) or in the sibling (not
/// exchanged: the exchange is made now), or in neither (exchanged and the marker gone: the
/// sibling is the old copy, deleted).
enum FolderSwap {
    /// Ends in `.part`, which no file of a download may: no bundle path can be this name, and
    /// the new copy has no part file left when the marker is made.
    static let marker = ".stash-new-copy.part"

    /// The sibling of the asset folder of `id` that a new copy is fetched into.
    static func siblingName(_ id: String) -> String { ".replacing-" + id }

    /// The new copy's files are whole and their renames durable: the marker goes into it.
    static func mark(assetsDir: String, id: String) throws {
        let assets = try FolderHandle.open(assetsDir, followingSymlink: true)
        defer { assets.release() }
        let sibling = try assets.child(siblingName(id))
        defer { sibling.release() }
        let descriptor = try sibling.openEntry(marker, O_CREAT | O_WRONLY)
        SystemCallError.close(descriptor)
        try sibling.sync()
    }

    /// The exchange, made durable; then `afterExchange` (an HLS package's keys,
    /// `ReplacementKeys`), then the marker leaves the new copy and the old copy is deleted.
    /// Throws only when the exchange was not made (the old copy is in place then); what fails
    /// after it is finished at the next start, or left to purge.
    static func swap(assetsDir: String, id: String, afterExchange: () -> Void = {}) throws {
        let assets = try FolderHandle.open(assetsDir, followingSymlink: true)
        defer { assets.release() }
        let descriptor = assets.descriptor
        let sibling = siblingName(id)
        do {
            try SystemCallError.check("renameat2 (RENAME_EXCHANGE)", assetsDir + "/" + id) {
                renameat2(descriptor, sibling, descriptor, id, UInt32(RENAME_EXCHANGE))
            }
        } catch let error as SystemCallError where error.errnoCode == EINVAL {
            throw StashError(
                .unimplemented, "the file system of \(assetsDir) cannot exchange two folders in one step (renameat2 RENAME_EXCHANGE: EINVAL); a download with several files cannot be replaced on it")
        }
        try? assets.sync()
        afterExchange()
        finish(assets, id: id)
    }

    /// After the exchange: the marker goes, durably (from then on the sibling is known to be
    /// the old copy), then the old copy.
    private static func finish(_ assets: FolderHandle, id: String) {
        if let folder = try? assets.child(id) {
            let descriptor = folder.descriptor
            _ = try? SystemCallError.check("unlink", folder.path + "/" + marker) { unlinkat(descriptor, marker, 0) }
            try? folder.sync()
            folder.release()
        }
        assets.removeEntry(siblingName(id))
    }

    /// At start, for a record committed with its new copy (`EngineState.swappingReason`),
    /// before the files are measured: finishes what the stop interrupted (`afterExchange` is
    /// made again whenever the exchange was made).
    static func finishAtStart(assetsDir: String, id: String, afterExchange: () -> Void = {}) throws {
        let assets = try FolderHandle.open(assetsDir, followingSymlink: true)
        defer { assets.release() }
        if hasMarker(assets, siblingName(id)) {
            try swap(assetsDir: assetsDir, id: id, afterExchange: afterExchange)
            return
        }
        afterExchange()
        if hasMarker(assets, id) {
            finish(assets, id: id)
        } else {
            assets.removeEntry(siblingName(id))
        }
    }

    private static func hasMarker(_ assets: FolderHandle, _ name: String) -> Bool {
        guard let folder = try? assets.child(name) else { return false }
        defer { folder.release() }
        return (try? folder.statusIfPresent(marker)) != nil
    }

    /// Deletes a new copy that will not be used (a failed or cancelled replace, one a restart
    /// interrupted), with everything in it.
    static func discard(assetsDir: String, id: String) {
        guard let assets = try? FolderHandle.open(assetsDir, followingSymlink: true) else { return }
        defer { assets.release() }
        assets.removeEntry(siblingName(id))
    }
}
