import Foundation

/// A file's retry in waiting (`EngineState+Retry`): how many attempts its transfers made, and
/// when the next may start.
struct FileRetry: Equatable {
    var attempts: Int
    var notBefore: Date
}
