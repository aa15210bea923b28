/// What the test server answers on one path. Every field can change while the server runs
/// (`TestHTTPServer.update`); the counters (`…Times`) count down as requests consume them.
package struct TestRoute: Sendable {
    package var body: TestBody
    package var etag: String?
    package var lastModified: String?
    /// Sent as Content-Type with the body; nil sends none.
    package var contentType: String?
    /// false: Range is ignored and the full body is sent with 200.
    package var honourRange = true
    /// Answer `failStatus` to the next `failTimes` requests, then serve normally.
    package var failStatus = 500
    package var failTimes = 0
    /// Sent as `Retry-After: <seconds>` with the failures above.
    package var retryAfterSeconds: Int?
    /// Answer this status to every request (e.g. 404), with a short text body.
    package var alwaysStatus: Int?
    /// For the next `resetTimes` requests, send `resetAfterBytes` body bytes then reset the connection.
    package var resetAfterBytes: Int?
    package var resetTimes = 0
    /// For the next `stallTimes` requests, stop sending after `stallAfterBytes` body bytes for
    /// `stallSeconds` (nil: until `TestHTTPServer.releaseStalls()`).
    package var stallAfterBytes: Int?
    package var stallTimes = 0
    package var stallSeconds: Double?
    /// Sends the body at about this many bytes per second.
    package var bytesPerSecond: Int?
    /// Answer 302 to this location: an absolute URL, or a path on this server.
    package var redirectTo: String?
    /// The next `partialAnswerTimes` 206 answers break the rules this way; other answers
    /// (a 200 from byte 0) stay correct.
    package var partialAnswer: TestPartialAnswer?
    package var partialAnswerTimes = 0
    /// The next `overlongTimes` answers send `overlongBytes` bytes more than their
    /// Content-Length, which stay on a kept-alive connection for the next response to trip on.
    package var overlongBytes = 0
    package var overlongTimes = 0

    package init(body: TestBody, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}
