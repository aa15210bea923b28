/// A master (multivariant) playlist: the qualities a stream offers and its alternative tracks.
public struct MasterPlaylist: Equatable, Sendable {
    public var variants: [Variant]
    public var renditions: [Rendition]
    /// EXT-X-INDEPENDENT-SEGMENTS: every segment starts with a key frame.
    public var independentSegments: Bool

    public init(variants: [Variant], renditions: [Rendition], independentSegments: Bool) {
        self.variants = variants
        self.renditions = renditions
        self.independentSegments = independentSegments
    }
}
