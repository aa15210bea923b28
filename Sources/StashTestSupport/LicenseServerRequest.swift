/// One request to `LicenseServer`'s licence path as it arrived, whatever it was answered.
package struct LicenseServerRequest: Sendable, Equatable {
    /// "acquire", "renew" or "release"; "" when the body was not a well-formed licence request.
    package var action: String
    /// The decoded `kids`, in the order sent; empty when the body was not well-formed.
    package var kids: [[UInt8]]
    package var contentID: String?
    package var certificateSHA256: String?
    /// Header names as sent, in order.
    package var headers: [RecordedRequest.HTTPHeaderPair]
    /// The body exactly as sent.
    package var body: [UInt8]

    /// The first value of a header, matched case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
