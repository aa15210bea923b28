import Foundation
import StashCore

/// An exclusive lock on `<socket>.lock`, held for the daemon's life, so a second daemon can
/// tell a live socket from a stale one (left by a daemon that was killed) without connecting.
final class SocketLock {
    let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock and writes our pid into the file; throws FAILED_PRECONDITION naming the
    /// holder's pid when another daemon has it.
    static func acquire(socketPath: String) throws -> SocketLock {
        let path = socketPath + ".lock"
        let fd = try SystemCallError.check("open", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let lockErrno = errno
            let holder = readPID(fd: fd)
            close(fd)
            guard lockErrno == EWOULDBLOCK else {
                throw SystemCallError(call: "flock", path: path, errnoCode: lockErrno)
            }
            let pidText = holder.map { "pid \($0)" } ?? "pid unknown"
            throw StashError(.failedPrecondition, "another stashd is already running on \(socketPath) (\(pidText))")
        }
        do {
            try SystemCallError.check("ftruncate", path) { ftruncate(fd, 0) }
            let text = "\(getpid())\n"
            try SystemCallError.check("pwrite", path) {
                Int32(clamping: text.withCString { pwrite(fd, $0, strlen($0), 0) })
            }
        } catch {
            close(fd)
            throw error
        }
        return SocketLock(path: path, fd: fd)
    }

    /// Releases the lock. The file stays: unlinking it would let two daemons lock two
    /// different files of the same name.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }

    private static func readPID(fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
