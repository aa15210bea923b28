/// The master playlist of a package on disk: which media playlists the package has, so an
/// export after a restart finds them without the registry.
public struct LocalMasterPlaylist: Equatable, Sendable {
    /// The EXT-X-STREAM-INF playlists, relative to the package folder.
    public var variantPaths: [String]
    /// The EXT-X-MEDIA playlists (audio, subtitles), relative to the package folder.
    public var renditionPaths: [String]

    public init(variantPaths: [String], renditionPaths: [String] = []) {
        self.variantPaths = variantPaths
        self.renditionPaths = renditionPaths
    }

    /// Every media playlist, variants first.
    public var playlistPaths: [String] { variantPaths + renditionPaths }

    /// Throws `HLSError` `.unsafePath` for a path that is not a plain relative name.
    public static func parse(_ text: String) throws -> LocalMasterPlaylist {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        guard lines.first.map({ $0.trimmingWhitespace() }) == "#EXTM3U" else {
            throw HLSError(.missingHeader, line: 1, "a package playlist must start with #EXTM3U")
        }
        var result = LocalMasterPlaylist(variantPaths: [])
        var pendingVariant = false
        for (index, raw) in lines.enumerated().dropFirst() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty { continue }
            if !line.hasPrefix("#") {
                guard pendingVariant else {
                    throw HLSError(.missingTag, line: index + 1, "'\(line.prefix(200))' is not preceded by EXT-X-STREAM-INF")
                }
                result.variantPaths.append(try LocalPath.check(line, line: index + 1))
                pendingVariant = false
            } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pendingVariant = true
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let attributes = try AttributeList(line.dropFirst("#EXT-X-MEDIA:".count), tag: "#EXT-X-MEDIA", line: index + 1)
                if let uri = try attributes.quotedString("URI") {
                    result.renditionPaths.append(try LocalPath.check(uri[...], line: index + 1))
                }
            }
        }
        return result
    }
}
