import StashCore

/// A time range of a stream, resolved against its duration, and which segments of a media
/// playlist it keeps: those that overlap `[start, end)` on the playlist's own timeline (the sum
/// of the EXTINF durations before each segment). A segment that begins at `end` is not kept; one
/// that ends at `start` is not either.
///
/// Times are compared in whole microseconds, each EXTINF rounded to one before it is added:
/// a sum of fractional durations in floating point drifts (fifty segments of 6.006 s do not add
/// up to 300.3 exactly), and a segment that begins exactly where a window ends must not be
/// kept or dropped by the last bit of that drift. Playlists write at most six decimals.
package struct SegmentWindow: Equatable, Sendable {
    /// Seconds; 0 when the range gave no start.
    package var start: Double
    /// Seconds; the stream's duration when the range gave no end or one past the duration.
    package var end: Double
    /// The end the range gave, when it was past the stream's duration and `end` is the
    /// duration instead.
    package var clampedFrom: Double?

    package init(start: Double, end: Double, clampedFrom: Double? = nil) {
        self.start = start
        self.end = end
        self.clampedFrom = clampedFrom
    }

    /// Resolves a range against a stream whose segments last `durations` (EXTINF seconds).
    /// Throws `.outOfRange` naming the value and the stream's duration for a value that is not
    /// a time in any stream (negative, not finite, above `HLSRules.maxRangeSeconds`: the add
    /// refused those already, but a range read back from a registry is checked again), a start
    /// at or past the end of the stream, and an end not after the start. An end past the
    /// duration becomes the duration.
    package init(start: Double?, end: Double?, durations: [Double]) throws(HLSError) {
        try self.init(start: start, end: end, total: durations.reduce(Int64(0)) { $0.addingSaturating(Self.microseconds($1)) })
    }

    /// The same for a stream `duration` seconds long.
    package init(start: Double?, end: Double?, duration: Double) throws(HLSError) {
        try self.init(start: start, end: end, total: Self.microseconds(duration))
    }

    private init(start: Double?, end: Double?, total: Int64) throws(HLSError) {
        // The duration as the microseconds say it: 300.3, not the 300.29999999999995 a sum of
        // fifty 6.006 s durations gives, which a clamped end would carry into the record.
        let duration = Double(total) / 1_000_000
        let length = HLSRules.seconds(duration)
        for (field, value) in [("start", start), ("end", end)] {
            guard let value else { continue }
            guard value.isFinite, value >= 0, value <= HLSRules.maxRangeSeconds else {
                throw HLSError(.outOfRange, line: nil, "hls.\(field) \(HLSRules.seconds(value)) is not a time in the stream, which lasts \(length) s")
            }
        }
        let first = start ?? 0
        guard Self.microseconds(first) < total else {
            throw HLSError(.outOfRange, line: nil, "hls.start \(HLSRules.seconds(first)) is at or past the end of the stream, which lasts \(length) s")
        }
        if let end, Self.microseconds(end) <= Self.microseconds(first) {
            throw HLSError(.outOfRange, line: nil, "hls.end \(HLSRules.seconds(end)) must be after hls.start \(HLSRules.seconds(first)) (the stream lasts \(length) s)")
        }
        if let end, Self.microseconds(end) > total {
            self.init(start: first, end: duration, clampedFrom: end)
        } else {
            self.init(start: first, end: end ?? duration)
        }
    }

    /// The indices of the segments of `durations` (EXTINF seconds, in order) that overlap
    /// `[start, end)`; always a contiguous run, empty when none does. A segment of zero duration
    /// is kept when it lies inside the window. Any values are accepted: an infinite end keeps
    /// everything from `start`.
    package static func segments(_ durations: [Double], start: Double, end: Double) -> Range<Int> {
        let from = microseconds(start)
        let to = microseconds(end)
        var lower: Int?
        var begin: Int64 = 0
        for (index, duration) in durations.enumerated() {
            guard begin < to else { return (lower ?? index)..<index }
            let finish = begin.addingSaturating(microseconds(duration))
            if lower == nil, finish > from || (finish == begin && begin >= from) { lower = index }
            begin = finish
        }
        return (lower ?? durations.count)..<durations.count
    }

    /// The indices of `playlist`'s segments this window keeps.
    package func segments(of playlist: MediaPlaylist) -> Range<Int> {
        Self.segments(playlist.segments.map(\.duration), start: start, end: end)
    }

    /// Seconds as whole microseconds, rounded; negative values are 0 and values too large for
    /// Int64 (or NaN) are its maximum, so no input traps.
    package static func microseconds(_ seconds: Double) -> Int64 {
        let scaled = (seconds * 1_000_000).rounded()
        guard scaled < 9.2e18 else { return .max }
        return scaled > 0 ? Int64(scaled) : 0
    }
}
