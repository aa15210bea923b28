#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, what it was called on, and errno.
package struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name, e.g. "open".
    package var call: String
    /// The path (or other subject) the call was made on.
    package var path: String
    /// errno as it was right after the call.
    package var errnoCode: Int32

    package init(call: String, path: String, errnoCode: Int32) {
        self.call = call
        self.path = path
        self.errnoCode = errnoCode
    }

    package var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(errnoCode))) (errno \(errnoCode))"
    }

    /// The one place C return codes are checked: runs `body`, again while it is interrupted by a
    /// signal (EINTR), and throws with the call's name, its path and errno when the result is
    /// negative. Returns the (non-negative) result. `call` and `path` are built only for an
    /// error: some callers put a path together for the message, an allocation on every success.
    @discardableResult
    package static func check<T: BinaryInteger>(_ call: @autoclosure () -> String, _ path: @autoclosure () -> String, _ body: () -> T) throws -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            // Read before anything else can overwrite it.
            let code = errno
            if code == EINTR { continue }
            throw SystemCallError(call: call(), path: path(), errnoCode: code)
        }
    }

    /// The status of what is at `path` (`lstat` when not following a symlink), or nil when
    /// nothing is there (ENOENT, or ENOTDIR for a parent that is a file). Anything else, such
    /// as EACCES, throws: a path that cannot be looked at is not a missing one.
    package static func status(_ path: String, followingSymlink: Bool = true) throws -> stat? {
        var info = stat()
        do {
            try check(followingSymlink ? "stat" : "lstat", path) {
                followingSymlink ? stat(path, &info) : lstat(path, &info)
            }
        } catch let error as SystemCallError where error.errnoCode == ENOENT || error.errnoCode == ENOTDIR {
            return nil
        }
        return info
    }

    /// Like `check`, for a call on a non-blocking descriptor: nil when it would block (EAGAIN),
    /// which for a drained pipe or inotify queue means "nothing more for now".
    package static func checkNonBlocking<T: BinaryInteger>(_ call: @autoclosure () -> String, _ path: @autoclosure () -> String, _ body: () -> T) throws -> T? {
        do {
            return try check(call(), path(), body)
        } catch let error as SystemCallError where error.errnoCode == EAGAIN || error.errnoCode == EWOULDBLOCK {
            return nil
        }
    }

    /// Closes `descriptor`, once. Linux frees the descriptor even when close(2) reports an
    /// error (EINTR, EIO), so retrying could close another thread's new descriptor; and its
    /// error carries nothing left to act on: whatever had to be durable was fsynced first,
    /// where a failure was thrown. Callers that need a write-back error fsync before this.
    package static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    /// Closes a folder stream from opendir/fdopendir (and its descriptor), as `close` does.
    package static func closeFolder(_ stream: OpaquePointer) {
        _ = closedir(stream)
    }

    /// Removes the file at `path`; one that is already gone is not an error.
    package static func removeFile(_ path: String) throws {
        do {
            try check("unlink", path) { unlink(path) }
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            return
        }
    }
}
