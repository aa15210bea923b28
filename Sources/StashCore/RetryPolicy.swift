/// Exponential backoff for a transfer: attempt n (from 1) waits base·2^(n-1), capped, unless
/// the server said how long to wait (Retry-After).
public struct RetryPolicy: Equatable, Sendable {
    public var maxAttempts: Int
    public var baseDelayMs: Int
    public var maxDelayMs: Int

    public init(maxAttempts: Int, baseDelayMs: Int, maxDelayMs: Int) {
        self.maxAttempts = maxAttempts
        self.baseDelayMs = baseDelayMs
        self.maxDelayMs = maxDelayMs
    }

    public init(_ config: DaemonConfig) {
        self.init(maxAttempts: config.retryMaxAttempts, baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs)
    }

    /// Delay before the retry that follows failed attempt `attempt` (1-based).
    public func delayMs(afterAttempt attempt: Int, retryAfterSeconds: Int? = nil) -> Int {
        if let retryAfter = retryAfterSeconds { return min(maxDelayMs, max(0, retryAfter * 1000)) }
        let shift = min(max(attempt - 1, 0), 30)
        return min(maxDelayMs, baseDelayMs << shift)
    }
}
