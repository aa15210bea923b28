/// What `stash plan` needs of one media playlist, a few numbers instead of every segment: the
/// planner keeps these and lets each parsed playlist go at once, so reading 64 variants of
/// 100,000 segments holds one playlist at a time per reader, not all of them.
package struct MediaSummary: Sendable {
    package var totalDuration: Double
    /// Seconds of the segments a time range keeps; `totalDuration` without one.
    package var keptDuration: Double
    /// Set when every segment kept is a byte range: the bytes of those (and their init sections).
    package var exactBytes: Int64?
    /// Peak and average bits per second of the whole playlist, when every segment is a byte range.
    package var bitRates: (peak: UInt64, average: UInt64)?
    /// EXT-X-KEY methods in order of first use, "NONE" for clear segments.
    package var encryption: [String]
    /// False for a live playlist (no EXT-X-ENDLIST).
    package var hasEndList: Bool
    /// `MediaPlaylist.warnings`.
    package var warnings: [String]

    /// With `start` or `end`, the sizes are those of the segments that overlap the range.
    package init(_ playlist: MediaPlaylist, start: Double? = nil, end: Double? = nil) {
        totalDuration = playlist.totalDuration
        hasEndList = playlist.hasEndList
        warnings = playlist.warnings
        var kept = playlist
        if start != nil || end != nil {
            let range = SegmentWindow.segments(playlist.segments.map(\.duration), start: start ?? 0, end: end ?? .infinity)
            kept.segments = Array(playlist.segments[range])
        }
        keptDuration = kept.totalDuration
        exactBytes = kept.exactBytes
        // The rates describe the variant (a media playlist's BANDWIDTH), so the whole of it.
        let wholeIsExact = kept.segments.count == playlist.segments.count ? exactBytes != nil : playlist.exactBytes != nil
        bitRates = wholeIsExact ? playlist.bitRates : nil
        var methods: [String] = []
        for segment in playlist.segments {
            let method = segment.key?.method.rawValue ?? "NONE"
            if !methods.contains(method) { methods.append(method) }
        }
        encryption = methods
    }
}
