import Foundation
import Synchronization

/// An exclusive advisory lock on a file, held for the life of the process (the kernel drops it
/// when the process dies, however it dies), with the holder's pid written inside so a refused
/// second process can say who holds it. A lock next to a resource (a data dir, a socket) lets
/// a newcomer tell a live owner from a stale leftover without probing the resource.
package final class LockFile: Sendable {
    /// The lock file's path.
    package let path: String
    /// -1 once released; behind a lock so two releases cannot close the descriptor twice
    /// (the second close could hit a descriptor reused by then).
    private let fd: Mutex<Int32>

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// Takes the lock and writes our pid into the file. Throws FAILED_PRECONDITION naming the
    /// holder's pid when another process has it, and `SystemCallError` when the file cannot be
    /// opened, locked or written.
    /// - Parameters:
    ///   - path: the lock file; created 0600 when missing.
    ///   - what: the locked resource, for the message ("data dir /x", a socket path).
    package static func acquire(path: String, what: String) throws -> LockFile {
        let fd = try SystemCallError.check("open", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        do {
            try SystemCallError.check("flock", path) { flock(fd, LOCK_EX | LOCK_NB) }
        } catch let error as SystemCallError where error.errnoCode == EWOULDBLOCK {
            let holder = readPID(fd: fd)
            SystemCallError.close(fd)
            let pidText = holder.map { "pid \($0)" } ?? "pid unknown"
            throw StashError(.failedPrecondition, "another stashd is already running on \(what) (\(pidText))")
        } catch {
            SystemCallError.close(fd)
            throw error
        }
        // The pid is only for the message another stashd gives: writing it (a page on a full
        // disk) may fail without costing the lock, which is the flock.
        let text = "\(getpid())\n"
        if ftruncate(fd, 0) == 0 {
            _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        }
        return LockFile(path: path, fd: fd)
    }

    /// Releases the lock (also released when the process exits). The file stays: unlinking it
    /// would let two processes lock two different files of the same name.
    package func release() {
        let open = fd.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if open >= 0 { SystemCallError.close(open) }
    }

    deinit { release() }

    /// The holder's pid, or nil when the file is empty or garbled (a holder that has not
    /// written it yet, or a file from something else).
    private static func readPID(fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
