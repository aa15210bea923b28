import StashCore

/// What `FetchWorkers.fetchBody` throws for a request with `retriesOutside` whose attempt
/// failed and may be tried again (the final `.retryLater` event): the caller decides when to
/// start the next, which counts on from `attempt`.
package struct FetchRetryLater: Error, Sendable, Equatable {
    package let attempt: Int
    package let delayMs: Int
    package let error: DownloadError

    package init(attempt: Int, delayMs: Int, error: DownloadError) {
        self.attempt = attempt
        self.delayMs = delayMs
        self.error = error
    }
}
