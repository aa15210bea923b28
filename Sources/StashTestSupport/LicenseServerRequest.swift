/// One request to `LicenseServer`'s licence path as it arrived, whatever it was answered.
public struct LicenseServerRequest: Sendable, Equatable {
    /// "acquire", "renew" or "release"; "" when the body was not a well-formed licence request.
    public var action: String
    /// The decoded `kids`, in the order sent; empty when the body was not well-formed.
    public var kids: [[UInt8]]
    public var contentID: String?
    public var certificateSHA256: String?
    /// Header names as sent, in order.
    public var headers: [RecordedRequest.HTTPHeaderPair]
    /// The body exactly as sent.
    public var body: [UInt8]

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
