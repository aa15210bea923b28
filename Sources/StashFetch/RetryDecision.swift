import StashCore

/// What follows a failed attempt: a pure decision so the retry rules are unit-testable.
enum RetryDecision: Equatable {
    /// Final: the transfer ends with this event (`.failed`, or `.noSpace` for a full disk).
    case giveUp(FetchEvent)
    /// Offline: wait for the network; the attempt is not counted.
    case waitForNetwork
    /// Try again after the delay.
    case retry(delayMs: Int)

    /// `attempts` is the number of counted attempts made so far, including the failed one;
    /// `isOnline` is only asked for connection-class failures.
    static func decide(
        after failure: FetchFailure, attempts: Int, policy: RetryPolicy, isOnline: () -> Bool
    ) -> RetryDecision {
        guard failure.retryable else { return .giveUp(failure.finalEvent) }
        if failure.connectionClass, !isOnline() { return .waitForNetwork }
        guard attempts < policy.maxAttempts else {
            var failure = failure
            failure.error.message += "; gave up after \(attempts) attempt\(attempts == 1 ? "" : "s")"
            return .giveUp(failure.finalEvent)
        }
        return .retry(delayMs: policy.delayMs(afterAttempt: attempts, retryAfterSeconds: failure.retryAfterSeconds))
    }
}
