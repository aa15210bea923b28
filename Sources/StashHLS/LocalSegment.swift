/// A segment or init section of a package playlist on disk, with what decrypts it.
package struct LocalSegment: Equatable, Sendable {
    /// Relative to the playlist's folder.
    package var path: String
    /// The AES-128 key file, relative to the playlist's folder; nil when the file is clear.
    package var keyPath: String?
    /// The 16-byte IV when `keyPath` is set: the explicit one, else (RFC 8216 section 5.2) the
    /// segment's media sequence number, big-endian.
    package var iv: [UInt8]?
    /// For a segment: the init section (EXT-X-MAP) in force, relative to the playlist's folder;
    /// nil when there is none, and for an init section itself.
    package var initSection: String?

    package init(path: String, keyPath: String? = nil, iv: [UInt8]? = nil, initSection: String? = nil) {
        self.path = path
        self.keyPath = keyPath
        self.iv = iv
        self.initSection = initSection
    }
}
