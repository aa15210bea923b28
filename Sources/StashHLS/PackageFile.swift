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

    package init(url: String, path: String, byteRange: ByteRange? = nil, size: Int64? = nil) {
        self.url = url
        self.path = path
        self.byteRange = byteRange
        self.size = size
    }
}
