#if DEBUG
import StashCore
@testable import StashFetch

extension FuzzTarget {
    /// A resume from byte 50,000 of a 100,000-byte resource, as in the tests of hostile
    /// servers; the fuzzer supplies the answer's header lines.
    static func headers(_ bytes: UnsafeRawBufferPointer) {
        var headers = ResponseHeaders()
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            headers.consume(bytes: UnsafeRawBufferPointer(rebasing: bytes[start...index]))
            start = index + 1
        }
        if start < bytes.endIndex { headers.consume(bytes: UnsafeRawBufferPointer(rebasing: bytes[start...])) }

        _ = headers.contentRange?.length
        _ = BodyPlan.decide(
            status: headers.status, requestedFrom: 50_000, contentRange: headers.contentRange,
            contentLength: headers.contentLength, knownTotal: 100_000, responseETag: headers.etag, partETag: "\"v1\"")
        _ = BodyPlan.decideRange(
            FetchRange(offset: 1_000, length: 99_000), status: headers.status, requestedFrom: 49_000,
            contentRange: headers.contentRange, responseETag: headers.etag, partETag: nil)
        if let length = headers.contentLength {
            _ = FetchRange(offset: length, length: length).bounds(skipping: length)
        }
        let policy = RetryPolicy(DaemonConfig())
        for attempt in [1, 5, 64] {
            _ = policy.delayMs(afterAttempt: attempt, retryAfterSeconds: headers.retryAfterSeconds)
        }
    }
}
#endif
