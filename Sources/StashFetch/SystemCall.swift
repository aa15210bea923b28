import Foundation
import StashCore

/// The one place POSIX return codes of the file path are checked; a failure becomes a storage
/// error naming the operation, the path and errno's text.
enum SystemCall {
    @discardableResult
    static func check<T: BinaryInteger>(_ operation: String, path: String, _ body: () -> T) throws -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw DownloadError(.storage, "\(operation) '\(path)' failed: \(String(cString: strerror(code))) (errno \(code))")
        }
    }
}
