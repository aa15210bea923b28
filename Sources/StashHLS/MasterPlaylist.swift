/// A master (multivariant) playlist: the qualities a stream offers and its alternative tracks.
public struct MasterPlaylist: Equatable, Sendable {
    public var variants: [Variant]
    public var renditions: [Rendition]
    /// EXT-X-INDEPENDENT-SEGMENTS: every segment starts with a key frame.
    public var independentSegments: Bool
    /// What the parser ignored or filled in (`PlaylistWarnings`), "line N: …" each.
    public var warnings: [String]

    public init(variants: [Variant], renditions: [Rendition], independentSegments: Bool, warnings: [String] = []) {
        self.variants = variants
        self.renditions = renditions
        self.independentSegments = independentSegments
        self.warnings = warnings
    }
}
