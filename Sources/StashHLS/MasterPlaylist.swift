/// A master (multivariant) playlist: the qualities a stream offers and its alternative tracks.
package struct MasterPlaylist: Equatable, Sendable {
    package var variants: [Variant]
    package var renditions: [Rendition]
    /// EXT-X-INDEPENDENT-SEGMENTS: every segment starts with a key frame.
    package var independentSegments: Bool
    /// What the parser ignored or filled in (`PlaylistWarnings`), "line N: …" each.
    package var warnings: [String]

    package init(variants: [Variant], renditions: [Rendition], independentSegments: Bool, warnings: [String] = []) {
        self.variants = variants
        self.renditions = renditions
        self.independentSegments = independentSegments
        self.warnings = warnings
    }
}
