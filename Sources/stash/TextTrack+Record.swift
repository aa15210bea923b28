import StashClient

extension TextTrack {
    /// A track in JSON output (`show --json`, `subtitles ls --json`).
    var record: [String: Any] {
        ["uri": uri, "language": language, "title": title, "type": type, "path": path]
    }
}
