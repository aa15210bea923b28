/// The EXT-X-KEY in force for a segment. METHOD=NONE is not represented: a segment without
/// encryption has no key (`Segment.key == nil`), so there is one way to say "clear".
package struct SegmentKey: Equatable, Sendable {
    package enum Method: String, Sendable, CaseIterable {
        /// The whole segment is AES-128-CBC encrypted with PKCS7 padding.
        case aes128 = "AES-128"
        /// Samples inside the segment are encrypted; the container stays readable.
        case sampleAES = "SAMPLE-AES"
    }

    package var method: Method
    /// Where the key is fetched, resolved to an absolute http(s) URL; or an `skd://` URI, which
    /// is never fetched (see `licenseKeyID`).
    package var uri: String
    /// The explicit 16-byte IV; nil means the segment's sequence number is the IV (section 5.2).
    package var iv: [UInt8]?
    /// KEYFORMAT; nil means "identity", the key file holds the raw 16 bytes.
    package var keyFormat: String?
    /// The id a licence server knows the key by: from an `skd://KEYID` URI, or from a KEYID
    /// attribute (0x + 32 hex digits), which a download with ClearKey DRM asks the licence
    /// server for instead of fetching the URI.
    package var licenseKeyID: [UInt8]?

    package init(method: Method, uri: String, iv: [UInt8]? = nil, keyFormat: String? = nil, licenseKeyID: [UInt8]? = nil) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.licenseKeyID = licenseKeyID
    }

    /// The key can only come from a licence server.
    package var isSKD: Bool { SKDURI.isSKD(uri[...]) }
}
