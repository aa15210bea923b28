/// A resource fetched into memory: its bytes, and what is needed to interpret them.
package struct FetchedBody: Sendable, Equatable {
    package var bytes: [UInt8]
    /// The URL after redirects, which relative URIs inside the body resolve against.
    package var effectiveURL: String
    /// The Content-Type header, lowercased, without parameters; "" when absent.
    package var contentType: String

    package init(bytes: [UInt8], effectiveURL: String, contentType: String) {
        self.bytes = bytes
        self.effectiveURL = effectiveURL
        self.contentType = contentType
    }
}
