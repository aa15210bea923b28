/// What the test server answers on one path. Every field can change while the server runs
/// (`TestHTTPServer.update`); the counters (`…Times`) count down as requests consume them.
public struct TestRoute: Sendable {
    public var body: TestBody
    public var etag: String?
    public var lastModified: String?
    /// Sent as Content-Type with the body; nil sends none.
    public var contentType: String?
    /// false: Range is ignored and the full body is sent with 200.
    public var honourRange = true
    /// Answer `failStatus` to the next `failTimes` requests, then serve normally.
    public var failStatus = 500
    public var failTimes = 0
    /// Sent as `Retry-After: <seconds>` with the failures above.
    public var retryAfterSeconds: Int?
    /// Answer this status to every request (e.g. 404), with a short text body.
    public var alwaysStatus: Int?
    /// For the next `resetTimes` requests, send `resetAfterBytes` body bytes then reset the connection.
    public var resetAfterBytes: Int?
    public var resetTimes = 0
    /// For the next `stallTimes` requests, stop sending after `stallAfterBytes` body bytes for
    /// `stallSeconds` (nil: until `TestHTTPServer.releaseStalls()`).
    public var stallAfterBytes: Int?
    public var stallTimes = 0
    public var stallSeconds: Double?
    /// Sends the body at about this many bytes per second.
    public var bytesPerSecond: Int?
    /// Answer 302 to this location: an absolute URL, or a path on this server.
    public var redirectTo: String?
    /// The next `partialAnswerTimes` 206 answers break the rules this way; other answers
    /// (a 200 from byte 0) stay correct.
    public var partialAnswer: TestPartialAnswer?
    public var partialAnswerTimes = 0
    /// The next `overlongTimes` answers send `overlongBytes` bytes more than their
    /// Content-Length, which stay on a kept-alive connection for the next response to trip on.
    public var overlongBytes = 0
    public var overlongTimes = 0

    public init(body: TestBody, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}
