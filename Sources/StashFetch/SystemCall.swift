import Foundation
import StashCore

/// The fetch path's face of `SystemCallError.check`: a failed call becomes a storage error, as
/// that is what a download that cannot write its file has failed with.
enum SystemCall {
    @discardableResult
    static func check<T: BinaryInteger>(_ operation: String, path: String, _ body: () -> T) throws -> T {
        do {
            return try SystemCallError.check(operation, path, body)
        } catch let error as SystemCallError {
            // Users and tests see this text in the download's error; keep its format stable.
            let reason = String(cString: strerror(error.errnoCode))
            throw DownloadError(.storage, "\(operation) '\(path)' failed: \(reason) (errno \(error.errnoCode))")
        }
    }
}
