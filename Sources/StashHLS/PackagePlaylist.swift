/// A playlist of an offline package: its text, with URIs relative to its own folder.
public struct PackagePlaylist: Equatable, Sendable {
    /// Relative to the asset folder, e.g. `master.m3u8` or `audio/en/index.m3u8`.
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}
