/// One file of an offline package: a segment or an init section.
public struct PackageFile: Equatable, Sendable {
    /// Where to fetch it, absolute.
    public var url: String
    /// Relative to the asset folder, e.g. `video/seg00000.ts`.
    public var path: String
    /// The part of `url` this file holds; nil for the whole resource.
    public var byteRange: ByteRange?
    /// The range's length when there is one; nil when only the server knows.
    public var size: Int64?

    public init(url: String, path: String, byteRange: ByteRange? = nil, size: Int64? = nil) {
        self.url = url
        self.path = path
        self.byteRange = byteRange
        self.size = size
    }
}
