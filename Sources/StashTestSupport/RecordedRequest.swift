/// One request as the test server received it.
package struct RecordedRequest: Sendable, Equatable {
    package var method: String
    /// The path without the query string.
    package var path: String
    package var uri: String
    /// Header names as sent, in order.
    package var headers: [HTTPHeaderPair]

    package struct HTTPHeaderPair: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The first value of a header, matched case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
