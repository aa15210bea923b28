import StashCore

/// What a transfer reports, in order, on the fetch thread. Exactly one of `completed`,
/// `received`, `failed`, `stopped`, `noSpace` and `retryLater` ends a transfer.
package enum FetchEvent: Sendable, Equatable {
    /// Response headers of a successful (2xx) response arrived; again after every retry.
    case started(FetchResponseInfo)
    /// Bytes in the part file; at most every 100 ms per transfer, the first 100 ms after the
    /// attempt started (`completed` carries the final size).
    case progress(downloadedBytes: Int64, totalBytes: Int64?)
    /// Attempt `attempt` (1-based) failed with `error`; the next one starts after `delayMs`.
    case retrying(attempt: Int, delayMs: Int, error: DownloadError)
    /// Final, for a request with `retriesOutside`: attempt `attempt` failed and the next one
    /// may start after `delayMs`, in a new transfer the caller starts when it chooses.
    case retryLater(attempt: Int, delayMs: Int, error: DownloadError)
    /// The network is down; the transfer waits and resumes by itself without using up attempts.
    case waitingForNetwork
    /// The final file is in place with this size, and its digest when one was expected (else "").
    case completed(bytes: Int64, sha256: String)
    /// Final, after retries. The part file is kept, except on a sha256 mismatch.
    case failed(DownloadError)
    /// Final, after `FetchWorkers.cancel`; the part file is closed and kept.
    case stopped
    /// Final: the file system is full (ENOSPC or EDQUOT). The part file is kept, so the
    /// transfer can resume from it once space is freed.
    case noSpace(DownloadError)
    /// Final, for a request with `memoryLimit`: the whole body.
    case received(FetchedBody)

    /// Whether this event ends the transfer.
    package var isFinal: Bool {
        switch self {
        case .completed, .received, .failed, .stopped, .noSpace, .retryLater: return true
        case .started, .progress, .retrying, .waitingForNetwork: return false
        }
    }
}
