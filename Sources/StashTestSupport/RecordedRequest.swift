/// One request as the test server received it.
public struct RecordedRequest: Sendable, Equatable {
    public var method: String
    /// The path without the query string.
    public var path: String
    public var uri: String
    /// Header names as sent, in order.
    public var headers: [HTTPHeaderPair]

    public struct HTTPHeaderPair: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
