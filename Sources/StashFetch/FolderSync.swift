import Foundation
import StashCore
import Synchronization

/// Makes the entries of folders durable: renames of finished files into them, and folders
/// made in them. One `fsync` of a folder covers every caller that asked before it started, so
/// many files renamed into one folder at once (or many downloads' folders made in `assets/`)
/// share it; callers that ask while it runs wait for the next one, which starts as soon as it
/// ends. Different folders are synced in parallel on the pool's threads.
final class FolderSync: Sendable {
    typealias Done = @Sendable (SystemCallError?) -> Void

    /// `descriptor`: the caller's open descriptor on the folder, valid until `done` is called
    /// (-1 for none: the sync opens the folder by its path).
    private struct Waiter {
        let descriptor: Int32
        let done: Done
    }

    private let pool: SyncPool
    /// Folders with a sync queued or running, and the callers waiting for their next sync.
    private let folders = Mutex<[String: [Waiter]]>([:])

    init(pool: SyncPool) {
        self.pool = pool
    }

    /// Calls `done` (on a sync thread) once an `fsync` of `path` that started after this call
    /// has returned, with its error if it or the folder's open failed. `here`: a caller on a
    /// sync thread runs the fsync itself when none of this folder is under way, rather than
    /// waking another thread for it.
    func sync(_ path: String, descriptor: Int32 = -1, here: Bool = false, done: @escaping Done) {
        let start = folders.withLock { folders -> Bool in
            let idle = folders[path] == nil
            folders[path, default: []].append(Waiter(descriptor: descriptor, done: done))
            return idle
        }
        guard start else { return }
        if here { run(path) } else { pool.run { self.run(path) } }
    }

    /// `sync(_:done:)` for several folders at once, on the pool's threads, the first one on
    /// this thread (`here`); `done` once all are synced, with the first failure.
    func sync(_ paths: [String], descriptor: (path: String, descriptor: Int32)? = nil, here: Bool = false, done: @escaping Done) {
        guard !paths.isEmpty else { return done(nil) }
        let countdown = SyncCountdown(count: paths.count, done: done)
        // The others first, so they are under way while this thread syncs the first.
        for (index, path) in paths.enumerated().reversed() {
            let own = descriptor.flatMap { $0.path == path ? $0.descriptor : nil } ?? -1
            sync(path, descriptor: own, here: here && index == 0) { countdown.finished($0) }
        }
    }

    /// The one sync of `path` for every caller waiting now.
    private func run(_ path: String) {
        // Taken before the fsync starts: every rename these callers made is covered by it.
        let waiters = folders.withLock { folders -> [Waiter] in
            defer { folders[path]?.removeAll() }
            return folders[path] ?? []
        }
        var failure: SystemCallError?
        do {
            if let open = waiters.first(where: { $0.descriptor >= 0 }) {
                try SystemCallError.check("fsync", path) { fsync(open.descriptor) }
            } else {
                // Symlinks followed: `assets/` may well be one (to another disk), and an fsync
                // through a planted one writes nothing wrong, it only syncs another folder.
                let descriptor = try SystemCallError.check("open folder", path) {
                    open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                }
                defer { SystemCallError.close(descriptor) }
                try SystemCallError.check("fsync", path) { fsync(descriptor) }
            }
        } catch {
            failure = error as? SystemCallError
        }
        for waiter in waiters { waiter.done(failure) }
        // Callers that came during the fsync get the next one; with none the folder is idle.
        let again = folders.withLock { folders -> Bool in
            if folders[path]?.isEmpty ?? true {
                folders[path] = nil
                return false
            }
            return true
        }
        if again { pool.run { self.run(path) } }
    }
}
