import Foundation
import StashCore

/// Makes finished files durable, each on its own: `fdatasync` of the file, the rename to its
/// final name, then (`FileDurability.alone`) an `fsync` of every folder from the file's up to
/// the one holding the asset's folder, shared with the other files renamed there meanwhile
/// (`FolderSync`).
///
/// Never `syncfs` or `sync`: those write back every dirty file of the file system, so with
/// 2.3 GB of another program's unwritten data on the same disk one 64 KiB download took
/// 3.95 s to complete, and stash forced that program's data to disk. An `fdatasync` writes
/// this file's data and what is needed to read it back, nothing else.
final class FileSyncer: Sendable {
    /// Syncs under way at once. A sync waits for the disk, not the CPU: on the development
    /// VM's virtual disk a 64 KiB file's `fdatasync` takes about 2 ms and a folder's `fsync`
    /// about 1.2 ms, so a single-file download holds a sync thread for about 3 ms and 4
    /// threads cap completions near 1,300 a second. 2,000 single-file downloads, 16 at a time
    /// (`make bench`), medians of 5 alternating runs: 2.77 s with 4 threads, 1.90 s with 8,
    /// 2.05 s with 16, 2.13 s with the whole-file-system sync before (bench/HISTORY.md).
    static let threads = 8

    private let pool = SyncPool(label: "stash.fetch.sync", threads: FileSyncer.threads)
    private let folders: FolderSync

    init() {
        folders = FolderSync(pool: pool)
    }

    /// Syncs `file`'s data, renames it to its final name and, when `durability` is `.alone`,
    /// syncs its folders; then closes it and calls `done` (on a sync thread) with the first
    /// error. The rename happens only once the data is durable, and `done` comes only once
    /// the rename is (or, `.grouped`, once it is made: the caller syncs the folders later).
    func commit(_ file: PartFile, durability: FileDurability, done: @escaping @Sendable (Error?) -> Void) {
        pool.run { [folders] in
            do {
                if file.isDeferred {
                    // Its folders are made now: an fsync of assets/ that starts during the
                    // data sync below covers the new folder.
                    try file.openDeferred(committing: true)
                    file.foldersCount = folders.now()
                }
                try file.syncDataAndRename()
            } catch {
                file.closeFile()
                return done(error)
            }
            guard durability == .alone else {
                file.closeFile()
                return done(nil)
            }
            // The folders above its own hold the folders made when the file was opened, which
            // a sync started since may have covered already: their syncs go on on the pool's
            // threads while this one syncs its own.
            let countdown = SyncCountdown(count: 2) { failure in
                file.closeFile()
                done(failure)
            }
            let above = Array(file.enclosingFolders.dropFirst())
            let made = file.foldersCount ?? folders.now()
            folders.sync(above, after: Array(repeating: made, count: above.count)) { countdown.finished($0) }
            // Its own folder holds the rename just made, synced here through the descriptor
            // the file was opened with: a single file's folder is its alone (but for its
            // download's few text tracks, whose own fsync would cover it too), so sharing its
            // fsync spared nothing, and cost the lock every sync thread takes (`FolderSync`).
            do {
                try SystemCallError.check("fsync", file.folderPath) { fsync(file.folderDescriptor) }
                countdown.finished(nil)
            } catch {
                countdown.finished(error as? SystemCallError)
            }
        }
    }

    /// The count to name folder changes just made by (`FolderSync.now`).
    func now() -> UInt64 {
        folders.now()
    }

    /// Returns once an `fsync` that started after this call has made the entries of each of
    /// `paths` durable.
    func sync(folders paths: [String]) async throws {
        guard !paths.isEmpty else { return }
        let folders = self.folders
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            folders.sync(paths) { failure in
                // On a sync thread: the task goes on as SCHED_OTHER (`DiskThreadPolicy`).
                DiskThreadPolicy.handingOff {
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
                }
            }
        }
    }

    /// The folders whose entries a file in `relativeFolder` (a path inside `folder`, "" for
    /// `folder` itself) depends on: that folder, each one above it up to `folder`, and the
    /// folder holding `folder` (where the download's own folder was made). Nearest first.
    static func enclosingFolders(_ relativeFolder: some StringProtocol, in folder: String) -> [String] {
        var folders = [folder, parent(of: folder)]
        var path = folder
        for component in relativeFolder.split(separator: "/") {
            path += "/" + component
            folders.insert(path, at: 0)
        }
        return folders
    }

    /// `folder` without its last component, as `NSString.deletingLastPathComponent` gives it
    /// ("/" for a folder at the root, "" for a name alone), without bridging to NSString for
    /// every file a transfer opens.
    static func parent(of folder: String) -> String {
        var path = folder.utf8[...]
        while path.count > 1, path.last == UInt8(ascii: "/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var parent = path[..<slash]
        while parent.count > 1, parent.last == UInt8(ascii: "/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(Substring(parent))
    }
}
