/// A side-loaded subtitle file of a download (the media module's TextTrack): fetched with the
/// download into `subtitles/<lang>.<type>` of its asset folder, listed with its subtitles.
/// In a request `type` may be empty and `path` is not read; the daemon fills both in.
public struct TextTrack: Equatable, Sendable {
    /// The formats a track may have.
    public static let types = ["vtt", "srt"]

    /// Where the file comes from: an http(s) URL.
    public var uri: String
    /// An RFC 5646 tag such as `es` or `pt-BR`.
    public var language: String
    public var title: String
    /// `vtt` or `srt`.
    public var type: String
    /// The file, relative to the asset folder (`subtitles/es.vtt`, `subtitles/es-2.vtt`).
    public var path: String

    public init(uri: String, language: String, title: String = "", type: String = "", path: String = "") {
        self.uri = uri
        self.language = language
        self.title = title
        self.type = type
        self.path = path
    }

    /// The file's name without its extension (`es-2`): what tells two tracks of one language
    /// apart, and what RemoveSubtitles takes to remove only one of them.
    package var stem: String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    /// The download's file for this track.
    package var file: DownloadFile { DownloadFile(url: uri, path: path) }

    /// Whether `other` is this track again: the same file in the same language and format.
    /// The title does not make another file.
    package func isSame(as other: TextTrack) -> Bool {
        uri == other.uri && type == other.type && language.lowercased() == other.language.lowercased()
    }
}
