/// Exponential backoff for a transfer: attempt n (from 1) waits base·2^(n-1), capped, unless
/// the server said how long to wait (Retry-After).
package struct RetryPolicy: Equatable, Sendable {
    package var maxAttempts: Int
    package var baseDelayMs: Int
    package var maxDelayMs: Int

    package init(maxAttempts: Int, baseDelayMs: Int, maxDelayMs: Int) {
        self.maxAttempts = maxAttempts
        self.baseDelayMs = baseDelayMs
        self.maxDelayMs = maxDelayMs
    }

    package init(_ config: DaemonConfig) {
        self.init(maxAttempts: config.retryMaxAttempts, baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs)
    }

    /// Delay before the retry that follows failed attempt `attempt` (1-based).
    package func delayMs(afterAttempt attempt: Int, retryAfterSeconds: Int? = nil) -> Int {
        if let retryAfter = retryAfterSeconds {
            // The server's number: saturate instead of trapping on the multiplication.
            let (ms, overflow) = max(0, retryAfter).multipliedReportingOverflow(by: 1000)
            return min(maxDelayMs, overflow ? .max : ms)
        }
        let shift = min(max(attempt - 1, 0), 30)
        return min(maxDelayMs, baseDelayMs << shift)
    }
}
