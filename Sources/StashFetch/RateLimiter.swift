/// Paces one transfer's writes to `limit` bytes/s by telling the write callback how long to
/// pause. libcurl's own CURLOPT_MAX_RECV_SPEED_LARGE (7.88) lets megabytes through in a burst
/// when the socket buffer is full, which makes a limit meaningless for files of that size.
struct RateLimiter: Equatable {
    /// Bytes per second; 0 is unlimited.
    private(set) var limit: Int64 = 0
    private var windowStart: UInt64 = 0
    private var windowBytes: Int64 = 0

    mutating func reset(limit: Int64, now: UInt64) {
        self.limit = max(0, limit)
        windowStart = now
        windowBytes = 0
    }

    /// Admits `count` bytes arriving at `now` (monotonic ns) and returns 0, or returns how many
    /// ns to wait before offering them again.
    mutating func admit(_ count: Int, now: UInt64) -> UInt64 {
        guard limit > 0 else { return 0 }
        let earliest = windowStart + nanoseconds(for: windowBytes)
        if earliest > now { return earliest - now }
        // Not ahead and the window is old: start a new one so an idle stretch earns no burst.
        if now - windowStart >= 1_000_000_000 {
            windowStart = now
            windowBytes = 0
        }
        windowBytes += Int64(count)
        return 0
    }

    private func nanoseconds(for bytes: Int64) -> UInt64 {
        UInt64(Double(bytes) / Double(limit) * 1e9)
    }
}
