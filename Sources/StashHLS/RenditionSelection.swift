/// What `MasterPlaylist.select(_:)` chose to keep: one variant and the separate audio and
/// subtitle renditions that play with it.
package struct RenditionSelection: Equatable, Sendable {
    package var variant: Variant
    /// Audio renditions with their own playlist, in the order asked for; empty when the audio
    /// is muxed into the variant.
    package var audio: [Rendition]
    /// Subtitle renditions, in the order asked for.
    package var subtitles: [Rendition]

    package init(variant: Variant, audio: [Rendition] = [], subtitles: [Rendition] = []) {
        self.variant = variant
        self.audio = audio
        self.subtitles = subtitles
    }
}
