/// How the server answers one request, decided under the server's lock from the route as it
/// is at that moment, then carried out on the channel's event loop.
struct TestResponsePlan {
    var status: Int
    var reason: String
    var headers: [(String, String)]
    var body: TestBody
    /// Bytes of `body` to send.
    var range: Range<Int>
    var sendBody: Bool
    /// Body bytes (counted from the start of `range`) after which the connection is reset.
    var resetAfter: Int?
    var stallAfter: Int?
    var stallSeconds: Double?
    /// `TestHTTPServer.releaseStalls` calls before this response was planned.
    var releasesBefore = 0
    var bytesPerSecond: Int?
    /// Bytes sent after the body that no header announced.
    var overlong = 0

    static func simple(status: Int, reason: String, text: String, headers: [(String, String)] = [], isHead: Bool) -> TestResponsePlan {
        let bytes = Array(text.utf8)
        return TestResponsePlan(
            status: status, reason: reason,
            headers: headers + [("Content-Type", "text/plain"), ("Content-Length", "\(bytes.count)")],
            body: .bytes(bytes), range: 0..<bytes.count, sendBody: !isHead)
    }
}
