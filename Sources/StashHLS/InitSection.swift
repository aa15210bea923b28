/// EXT-X-MAP: the initialization section (fMP4 `moov`, or TS PAT/PMT) that segments after it
/// need before they can be decoded.
package struct InitSection: Equatable, Sendable {
    /// Resolved to an absolute http(s) URL.
    package var uri: String
    /// Nil when the section is the whole resource.
    package var byteRange: ByteRange?
    /// The EXT-X-KEY in force at the EXT-X-MAP tag, which is what encrypts the section (RFC 8216
    /// section 4.3.2.5). It can differ from its segments' key: a clear init before encrypted
    /// segments is common, and a copy that moved the KEY line above the MAP would make players
    /// decrypt a clear section.
    package var key: SegmentKey?

    package init(uri: String, byteRange: ByteRange? = nil, key: SegmentKey? = nil) {
        self.uri = uri
        self.byteRange = byteRange
        self.key = key
    }
}
