/// An RFC 8216 playlist: either the master that lists variants and renditions, or the media
/// playlist of one of them that lists segments.
package enum Playlist: Equatable, Sendable {
    case master(MasterPlaylist)
    case media(MediaPlaylist)

    /// Parses a playlist fetched from `baseURL`, resolving every URI against it. The size is
    /// checked before the bytes are decoded, so an oversized body costs no parsing.
    package static func parse(_ bytes: [UInt8], baseURL: String) throws -> Playlist {
        try checkSize(bytes.count)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HLSError(.notUTF8, line: nil, "the playlist is not valid UTF-8 (RFC 8216 section 4.1)")
        }
        return try parseChecked(text, baseURL: baseURL)
    }

    package static func parse(_ text: String, baseURL: String) throws -> Playlist {
        try checkSize(text.utf8.count)
        return try parseChecked(text, baseURL: baseURL)
    }

    private static func checkSize(_ count: Int) throws {
        guard count <= HLSError.maxPlaylistBytes else {
            throw HLSError(.tooLarge, line: nil, "the playlist is \(count) bytes; the limit is \(HLSError.maxPlaylistBytes)")
        }
    }

    private static func parseChecked(_ text: String, baseURL: String) throws -> Playlist {
        let playlist = try PlaylistText(text, baseURL: baseURL)
        switch try playlist.kind() {
        case .master: return .master(try MasterPlaylist(parsing: playlist))
        case .media: return .media(try MediaPlaylist(parsing: playlist))
        }
    }
}
