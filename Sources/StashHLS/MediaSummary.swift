/// What `stash plan` needs of one media playlist, a few numbers instead of every segment: the
/// planner keeps these and lets each parsed playlist go at once, so reading 64 variants of
/// 100,000 segments holds one playlist at a time per reader, not all of them.
package struct MediaSummary: Sendable {
    package var totalDuration: Double
    /// Set when every segment is a byte range.
    package var exactBytes: Int64?
    /// Peak and average bits per second; set with `exactBytes`.
    package var bitRates: (peak: UInt64, average: UInt64)?
    /// EXT-X-KEY methods in order of first use, "NONE" for clear segments.
    package var encryption: [String]
    /// False for a live playlist (no EXT-X-ENDLIST).
    package var hasEndList: Bool
    /// `MediaPlaylist.warnings`.
    package var warnings: [String]

    package init(_ playlist: MediaPlaylist) {
        totalDuration = playlist.totalDuration
        hasEndList = playlist.hasEndList
        warnings = playlist.warnings
        exactBytes = playlist.exactBytes
        bitRates = exactBytes == nil ? nil : playlist.bitRates
        var methods: [String] = []
        for segment in playlist.segments {
            let method = segment.key?.method.rawValue ?? "NONE"
            if !methods.contains(method) { methods.append(method) }
        }
        encryption = methods
    }
}
