#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, what it was called on, and errno.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name, e.g. "open".
    public var call: String
    /// The path (or other subject) the call was made on.
    public var path: String
    /// errno as it was right after the call.
    public var errnoCode: Int32

    public init(call: String, path: String, errnoCode: Int32) {
        self.call = call
        self.path = path
        self.errnoCode = errnoCode
    }

    public var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(errnoCode))) (errno \(errnoCode))"
    }

    /// The one place C return codes are checked: runs `body`, again while it is interrupted by a
    /// signal (EINTR), and throws with the call's name, its path and errno when the result is
    /// negative. Returns the (non-negative) result.
    @discardableResult
    public static func check<T: BinaryInteger>(_ call: String, _ path: String, _ body: () -> T) throws -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            // Read before anything else can overwrite it.
            let code = errno
            if code == EINTR { continue }
            throw SystemCallError(call: call, path: path, errnoCode: code)
        }
    }
}
