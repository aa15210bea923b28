/// How a hostile or broken server gets a 206 wrong (`TestRoute.partialAnswer`): the ways a
/// resume can be answered that must not leave a wrong file marked complete.
package enum TestPartialAnswer: Sendable, Equatable {
    /// A 206 with the requested bytes but no Content-Range header.
    case omitContentRange
    /// A 206 with only the first `bytes` of the requested range, and a Content-Range that says
    /// so honestly (`bytes 50000-50009/100000`).
    case shortRange(bytes: Int)
    /// A 206 with the requested bytes, its Content-Range and Content-Length replaced by these
    /// raw values (e.g. `bytes 50000-99999/*` and `9223372036854775807`).
    case headers(contentRange: String, contentLength: String)
}
