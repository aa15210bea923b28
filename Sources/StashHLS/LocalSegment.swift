/// A segment or init section of a package playlist on disk, with what decrypts it.
package struct LocalSegment: Equatable, Sendable {
    /// Relative to the playlist's folder.
    package var path: String
    /// The AES-128 key file, relative to the playlist's folder; nil when the file is clear.
    package var keyPath: String?
    /// The 16-byte IV when `keyPath` is set: the explicit one, else (RFC 8216 section 5.2) the
    /// segment's media sequence number, big-endian.
    package var iv: [UInt8]?

    package init(path: String, keyPath: String? = nil, iv: [UInt8]? = nil) {
        self.path = path
        self.keyPath = keyPath
        self.iv = iv
    }
}
