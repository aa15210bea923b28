import Foundation
import StashCore
import Synchronization

/// Makes the entries of folders durable: renames of finished files into them, and folders
/// made in them. Every `fsync` gets a number when it starts, from one count for all folders;
/// a caller names the changes it needs made durable by the count read after making them
/// (`now`), and any `fsync` of that folder numbered above it covers them. So one `fsync` of a
/// folder serves every caller that asked before it started, and a caller whose changes an
/// `fsync` already made durable waits for nothing: a download's folder made in `assets/` when
/// its transfer opened its file is usually covered, by the time the file is complete, by the
/// `fsync` of `assets/` that another download's completion started meanwhile. Different
/// folders are synced in parallel on the pool's threads.
final class FolderSync: Sendable {
    typealias Done = @Sendable (SystemCallError?) -> Void

    /// `after`: the count read after the changes were made; an `fsync` numbered above it
    /// covers them.
    private struct Waiter {
        let after: UInt64
        let done: Done
    }

    private struct Folder {
        var waiters: [Waiter] = []
        var running = false
        /// The number of the last `fsync` of the folder that succeeded: every change made
        /// before it started is durable.
        var durable: UInt64 = 0

        /// Adds `waiter`; true when no `fsync` of the folder is under way, and the caller starts one.
        mutating func wait(_ waiter: Waiter) -> Bool {
            waiters.append(waiter)
            defer { running = true }
            return !running
        }

        /// The `fsync` numbered `number` returned: takes out the waiters it covers; `running`
        /// stays true while others wait.
        mutating func synced(_ number: UInt64, failed: Bool) -> [Waiter] {
            if !failed { durable = max(durable, number) }
            // Most often all of them: handed over whole, nothing allocated under the lock.
            if waiters.allSatisfy({ $0.after < number }) {
                defer { waiters = [] }
                running = false
                return waiters
            }
            let covered = waiters.filter { $0.after < number }
            waiters.removeAll { $0.after < number }
            running = !waiters.isEmpty
            return covered
        }
    }

    private struct State {
        var folders: [String: Folder] = [:]
    }

    /// Folders remembered at most while none of them is being synced or waited for: past it,
    /// the idle ones are forgotten (a caller of a forgotten folder waits for a new `fsync`),
    /// so the downloads' own folders do not pile up.
    static let remembered = 256

    private let pool: SyncPool
    private let state = Mutex(State())
    /// `fsync`s started so far, of every folder; counted under `state`'s lock, read without it
    /// (`now`, called for every file opened). Read stale, it only asks a later `fsync`.
    private let started = Atomic<UInt64>(0)

    init(pool: SyncPool) {
        self.pool = pool
    }

    /// The count to name changes just made by: see `sync(_:after:)`.
    func now() -> UInt64 {
        started.load(ordering: .sequentiallyConsistent)
    }

    /// Calls `done` (on a sync thread) once an `fsync` of `path` that started after the count
    /// was `after` (by default: after this call) has returned, with its error if it or the
    /// folder's open failed; at once when one already has. `here`: a caller on a sync thread
    /// runs the fsync itself when none of this folder is under way, rather than waking
    /// another thread for it.
    func sync(_ path: String, after: UInt64? = nil, here: Bool = false, done: @escaping Done) {
        enum Next { case covered, queued, start }
        // Changed in place, as in `run`: a copy taken out and put back copied its waiters,
        // allocating under a lock every sync thread takes.
        let next = state.withLock { state -> Next in
            let after = after ?? started.load(ordering: .sequentiallyConsistent)
            if let durable = state.folders[path]?.durable, durable > after { return .covered }
            return state.folders[path, default: Folder()].wait(Waiter(after: after, done: done)) ? .start : .queued
        }
        switch next {
        case .covered: done(nil)
        case .queued: break
        case .start: if here { run(path) } else { pool.run { self.run(path) } }
        }
    }

    /// `sync(_:after:done:)` for several folders at once, on the pool's threads, the first one
    /// on this thread (`here`); `done` once all are synced, with the first failure. `after`:
    /// the count for each folder, in order (nil for each: after this call).
    func sync(
        _ paths: [String], after counts: [UInt64]? = nil, here: Bool = false, done: @escaping Done
    ) {
        guard !paths.isEmpty else { return done(nil) }
        let countdown = SyncCountdown(count: paths.count, done: done)
        // The others first, so they are under way while this thread syncs the first.
        for (index, path) in paths.enumerated().reversed() {
            let after = counts.flatMap { index < $0.count ? $0[index] : nil }
            sync(path, after: after, here: here && index == 0) { countdown.finished($0) }
        }
    }

    /// One `fsync` of `path` for every caller waiting now, then again while callers it did not
    /// cover wait.
    private func run(_ path: String) {
        // Numbered before it starts: every change made before this is covered by it.
        let number = started.add(1, ordering: .sequentiallyConsistent).newValue
        var failure: SystemCallError?
        do {
            // Symlinks followed: `assets/` may well be one (to another disk), and an fsync
            // through a planted one writes nothing wrong, it only syncs another folder.
            let opened = try SystemCallError.check("open folder", path) {
                open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
            defer { SystemCallError.close(opened) }
            try SystemCallError.check("fsync", path) { fsync(opened) }
        } catch {
            failure = error as? SystemCallError
        }
        let (covered, again) = state.withLock { state -> ([Waiter], Bool) in
            // The waiters whose changes came before this fsync started.
            guard let covered = state.folders[path]?.synced(number, failed: failure != nil) else { return ([], false) }
            let again = state.folders[path]?.running ?? false
            if state.folders.count > Self.remembered {
                state.folders = state.folders.filter { $0.value.running }
            }
            return (covered, again)
        }
        for waiter in covered { waiter.done(failure) }
        if again { pool.run { self.run(path) } }
    }
}
