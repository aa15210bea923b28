import CLinux
import Foundation
import Logging
import StashCore
import Synchronization

/// Watches the folders of complete downloads with inotify, so a file deleted, truncated or
/// replaced by someone else is noticed at once instead of at the next start or verify. It
/// only says which downloads' folders changed; the engine then looks at their files (one stat
/// each) and decides, so events caused by stash itself cost a stat and change nothing.
///
/// Its own thread sleeps in poll(2) on the inotify descriptor: no timer, no CPU while the disk
/// is quiet. Reading a file (a player) raises no event it asks for.
///
/// inotify on a folder reports only what is done through that folder's names. A file with
/// other names (a hard link, as `adopt --link` makes: the user's own path is one) can be
/// truncated or written through a folder that is not watched, so such a file gets a watch of
/// its own: a watch on a file is on its inode, and sees a write through any name.
///
/// The kernel bounds watches per user (`fs.inotify.max_user_watches`). A download whose
/// folders cannot all be watched is looked at by a stat pass every `pollInterval` seconds
/// instead, and `unwatchedCount` says how many there are, for `stash info`.
final class DiskWatch: Sendable {
    /// Deleted, created, moved in or out, written (truncation is a write), or the folder
    /// itself deleted or moved; not reads, opens or attribute changes.
    private static let mask = UInt32(IN_DELETE | IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    /// Written (truncation is a write) through any of its names; a hard-linked file's own watch.
    private static let fileMask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_DONT_FOLLOW)

    private struct State {
        var idByWatch: [Int32: String] = [:]
        var watchesByID: [String: [Int32]] = [:]
        /// Downloads that could not be watched whole, looked at by the stat pass.
        var unwatched: Set<String> = []
        var closed = false
    }

    private let state = Mutex(State())
    private let descriptor: Int32
    /// The other end wakes the thread to stop it.
    private let wake: (read: Int32, write: Int32)
    let settings: DiskWatchSettings
    private let changed: @Sendable ([String]) -> Void
    private let logger: Logger

    /// `changed` is called on the watch's thread with the ids whose folders changed (or, for
    /// unwatched downloads, every `pollInterval` with all of them).
    init(settings: DiskWatchSettings = DiskWatchSettings(), logger: Logger, changed: @escaping @Sendable ([String]) -> Void) throws {
        descriptor = try SystemCallError.check("inotify_init1", "") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
        var ends: [Int32] = [-1, -1]
        do {
            try SystemCallError.check("pipe2", "") { pipe2(&ends, O_CLOEXEC | O_NONBLOCK) }
        } catch {
            SystemCallError.close(descriptor)
            throw error
        }
        wake = (ends[0], ends[1])
        self.settings = settings
        self.changed = changed
        self.logger = logger
        NamedThread.start("stash-diskwatch") { [self] in run() }
    }

    /// Watches `folders` (absolute paths) for download `id`, replacing what was watched for it,
    /// and those of `files` (absolute paths) that have more than one name. Returns false when
    /// the kernel (or `limit`) gave no more watches: the stat pass covers it.
    @discardableResult
    func watch(id: String, folders: [String], files: [String] = []) -> Bool {
        unwatch(id: id)
        var added: [Int32] = []
        var complete = true
        func add(_ path: String, mask: UInt32) -> Bool {
            if let limit = settings.limit, state.withLock({ $0.idByWatch.count + added.count }) >= limit { return false }
            do {
                let watch = try SystemCallError.check("inotify_add_watch", path) { inotify_add_watch(descriptor, path, mask) }
                added.append(watch)
                return true
            } catch let error as SystemCallError where error.errnoCode == ENOSPC {
                return false
            } catch {
                // Already gone: the engine's look at the files will find it so.
                logger.debug("cannot watch a path", metadata: ["id": "\(id)", "error": "\(error)"])
                return false
            }
        }
        for folder in folders where !add(folder, mask: Self.mask) {
            complete = false
            break
        }
        // One lstat each; most files have one name and need no watch beyond their folder's.
        for file in files where complete {
            guard let info = try? SystemCallError.status(file, followingSymlink: false),
                  info.st_mode & S_IFMT == S_IFREG, info.st_nlink > 1 else { continue }
            complete = add(file, mask: Self.fileMask)
        }
        let startsPolling = state.withLock { state -> Bool in
            // Two downloads never share a folder, but a watch on the same inode is the same
            // number: the newest owner wins.
            for watch in added { state.idByWatch[watch] = id }
            state.watchesByID[id] = added
            if complete {
                state.unwatched.remove(id)
                return false
            }
            return state.unwatched.insert(id).inserted && state.unwatched.count == 1
        }
        // The thread may be asleep with no timeout: it must start its stat pass.
        if startsPolling { wakeThread() }
        return complete
    }

    /// Stops watching `id` (it is no longer complete, or is gone).
    func unwatch(id: String) {
        let watches = state.withLock { state -> [Int32] in
            state.unwatched.remove(id)
            guard let watches = state.watchesByID.removeValue(forKey: id) else { return [] }
            for watch in watches where state.idByWatch[watch] == id { state.idByWatch[watch] = nil }
            return watches
        }
        // Events already queued for these watches name no download any more and are dropped.
        // EINVAL means the kernel dropped the watch already (its folder went): nothing to undo.
        for watch in watches {
            _ = try? SystemCallError.check("inotify_rm_watch", "watch \(watch)") { inotify_rm_watch(descriptor, watch) }
        }
    }

    /// How many downloads are looked at by the stat pass rather than inotify.
    var unwatchedCount: Int { state.withLock { $0.unwatched.count } }

    /// Closed here, once the thread has ended and nothing can call `watch` any more, not when
    /// the thread ends: a `watch` after `close` (a late look at a download) writes its wake-up
    /// byte to the pipe, and a number the thread had closed may by then be another file's.
    deinit {
        SystemCallError.close(descriptor)
        SystemCallError.close(wake.read)
        SystemCallError.close(wake.write)
    }

    /// Stops the thread.
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        wakeThread()
    }

    private func wakeThread() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds a wake-up; nothing is lost.
        _ = try? SystemCallError.checkNonBlocking("write", "the disk watch's wake-up pipe") { Glibc.write(wake.write, &byte, 1) }
    }

    private func run() {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        // Aligned for inotify_event, and room for many events per read.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let polling = state.withLock { !$0.unwatched.isEmpty }
            let timeout = polling ? Int32(min(max(settings.pollInterval, 0.01), 3600) * 1000) : -1
            let ready: Int32
            do {
                ready = try SystemCallError.check("poll", "the disk watch's inotify queue") { poll(&fds, 2, timeout) }
            } catch {
                logger.error("the disk watch stopped", metadata: ["error": "\(error)"])
                return
            }
            if state.withLock({ $0.closed }) { return }
            if fds[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while let count = try? SystemCallError.checkNonBlocking("read", "the disk watch's wake-up pipe", {
                    Glibc.read(wake.read, &drained, drained.count)
                }), count > 0 {}
            }
            var ids = Set<String>()
            if fds[0].revents != 0 { readEvents(into: &ids, buffer: buffer) }
            if ready == 0 { ids.formUnion(state.withLock { $0.unwatched }) }
            if !ids.isEmpty { changed(Array(ids)) }
        }
    }

    /// Takes every queued event and notes whose folder it was in.
    private func readEvents(into ids: inout Set<String>, buffer: UnsafeMutableRawPointer) {
        while true {
            let count: Int
            do {
                // nil: the queue is drained (the descriptor is non-blocking).
                guard let read = try SystemCallError.checkNonBlocking("read", "the disk watch's inotify queue", {
                    Glibc.read(descriptor, buffer, 64 * 1024)
                }), read > 0 else { return }
                count = read
            } catch {
                logger.error("cannot read the disk watch's events", metadata: ["error": "\(error)"])
                return
            }
            var offset = 0
            var overflowed = false
            state.withLock { state in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = (buffer + offset).load(as: inotify_event.self)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                    if let id = state.idByWatch[event.wd] { ids.insert(id) }
                    if event.mask & UInt32(IN_IGNORED) != 0, let id = state.idByWatch.removeValue(forKey: event.wd) {
                        // The folder is gone (or moved away): its download is looked at now,
                        // and its other folders stay watched until the engine decides.
                        ids.insert(id)
                        state.watchesByID[id]?.removeAll { $0 == event.wd }
                    }
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
                // Events were lost: every watched download is looked at.
                if overflowed { ids.formUnion(state.watchesByID.keys) }
            }
        }
    }
}
