/// One track of a file `stash export` wrote.
public struct ExportTrack: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable, CaseIterable {
        case video, audio, subtitles
    }

    public var kind: Kind
    /// The ISO 639-2 code written in the file (`eng`), `und` when the source names none.
    public var language: String
    /// The codec as libavcodec names it: `h264`, `aac`, `webvtt`, `subrip`, `mov_text`.
    public var codec: String
    /// The rendition's NAME, or the text track's title; empty when there is none.
    public var title: String

    public init(kind: Kind, language: String, codec: String, title: String = "") {
        self.kind = kind
        self.language = language
        self.codec = codec
        self.title = title
    }
}
