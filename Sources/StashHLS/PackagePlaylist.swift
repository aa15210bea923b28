/// A playlist of an offline package: its text, with URIs relative to its own folder.
package struct PackagePlaylist: Equatable, Sendable {
    /// Relative to the asset folder, e.g. `master.m3u8` or `audio/en/index.m3u8`.
    package var path: String
    package var text: String

    package init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}
