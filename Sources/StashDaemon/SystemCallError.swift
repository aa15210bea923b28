#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with what it was called on and errno.
struct SystemCallError: Error, CustomStringConvertible {
    var call: String
    var path: String
    var errnoCode: Int32

    var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(errnoCode))) (errno \(errnoCode))"
    }

    /// The one place the daemon's own system calls are checked: a negative result throws with
    /// the call's name, its path and errno.
    @discardableResult
    static func check(_ call: String, _ path: String, _ body: () -> Int32) throws -> Int32 {
        let result = body()
        if result < 0 {
            throw SystemCallError(call: call, path: path, errnoCode: errno)
        }
        return result
    }
}
