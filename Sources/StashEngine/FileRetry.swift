import Foundation

/// A file's retry (`EngineState+Retry`): how many attempts its transfers made, when the next
/// may start, and whether the file is out of the transfer slots until then.
struct FileRetry: Equatable {
    var attempts: Int
    var notBefore: Date
    /// What failed, as the download's `state_reason` says it after "attempt N: ".
    var failure = ""
    /// Out of the slots until `notBefore` (`.retryDue` gives it back); false once the file
    /// waits for a transfer slot again or its download starts over.
    var waiting = true

    /// The key of a download's planning (reading its playlists or MPD, which are none of its
    /// files) among its retries.
    static let planning = -1
}
