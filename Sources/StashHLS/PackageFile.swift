import StashCore

/// One file of an offline package: a segment or an init section.
package struct PackageFile: Equatable, Sendable {
    /// Where to fetch it, absolute.
    package var url: String
    /// Relative to the asset folder, e.g. `video/seg00000.ts`.
    package var path: String
    /// The part of `url` this file holds; nil for the whole resource.
    package var byteRange: ByteRange?
    /// The range's length when there is one; nil when only the server knows.
    package var size: Int64?
    /// The container its first bytes must show; nil for a file encrypted with AES-128, whose
    /// bytes are ciphertext until a player (or an export) decrypts them, and so not checked.
    package var container: SegmentContainer?

    package init(url: String, path: String, byteRange: ByteRange? = nil, size: Int64? = nil, container: SegmentContainer? = nil) {
        self.container = container
        self.url = url
        self.path = path
        self.byteRange = byteRange
        self.size = size
    }
}
