/// A resource fetched into memory: its bytes, and what is needed to interpret them.
public struct FetchedBody: Sendable, Equatable {
    public var bytes: [UInt8]
    /// The URL after redirects, which relative URIs inside the body resolve against.
    public var effectiveURL: String
    /// The Content-Type header, lowercased, without parameters; "" when absent.
    public var contentType: String

    public init(bytes: [UInt8], effectiveURL: String, contentType: String) {
        self.bytes = bytes
        self.effectiveURL = effectiveURL
        self.contentType = contentType
    }
}
