import Foundation

/// An exclusive advisory lock on a file, held for the life of the process (the kernel drops it
/// when the process dies, however it dies), with the holder's pid written inside so a refused
/// second process can say who holds it.
public final class LockFile: @unchecked Sendable {
    public let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock or throws FAILED_PRECONDITION naming the pid that holds it.
    /// `what` describes the resource for the message ("data dir /x").
    public static func acquire(path: String, what: String) throws -> LockFile {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StashError(.failedPrecondition, "cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingWhitespace() ?? ""
            close(fd)
            let who = holder.isEmpty ? "" : " (pid \(holder))"
            throw StashError(.failedPrecondition, "another stashd is already running on \(what)\(who)")
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        return LockFile(path: path, fd: fd)
    }

    /// Releases the lock (also released when the process exits).
    public func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
