import Foundation

/// A representation's SegmentTemplate with its inherited attributes merged: the URL templates,
/// the numbering and the timing, checked when the MPD was read; `segments()` expands it.
package struct SegmentTemplate: Equatable, Sendable {
    /// How segment times are given: every segment `duration` ticks long (the last cut at the
    /// period's end), or a SegmentTimeline.
    package enum Timing: Equatable, Sendable {
        case duration(UInt64)
        case timeline([TimelineRun])
    }

    package var media: URLTemplate
    package var initialization: URLTemplate?
    package var baseURL: String
    package var representationID: String
    package var bandwidth: UInt64
    package var startNumber: UInt64
    package var timescale: UInt64
    package var presentationTimeOffset: UInt64
    package var timing: Timing
    /// The number of media segments: at most `DASHError.maxSegments`, and `startNumber + count`
    /// and every segment's end time fit in 64 bits.
    package var count: Int
    /// The period's length in seconds, where the last `.duration` segment ends.
    package var periodDuration: Double

    /// The initialization segment and the media segments, each URL resolved against the
    /// representation's base URL.
    package func segments() throws -> SegmentList {
        guard let base = URL(string: baseURL) else {
            throw DASHError(.invalidURI, "the base URL '\(baseURL.prefix(200))' does not parse")
        }
        let scale = Double(timescale)
        let offset = Double(presentationTimeOffset)
        var initSegment: DASHSegment?
        if let initialization {
            let text = initialization.expand(representationID: representationID, bandwidth: bandwidth, number: startNumber, time: 0)
            initSegment = DASHSegment(url: try MPDURL.resolve(text, against: base, field: "SegmentTemplate@initialization").absoluteString,
                                      range: nil, start: 0, duration: 0)
        }
        var media: [DASHSegment] = []
        media.reserveCapacity(count)
        func append(index: Int, time: UInt64, ticks: UInt64) throws {
            let text = self.media.expand(representationID: representationID, bandwidth: bandwidth,
                                         number: startNumber + UInt64(index), time: time)
            let url = try MPDURL.resolve(text, against: base, field: "SegmentTemplate@media")
            media.append(DASHSegment(url: url.absoluteString, range: nil, start: (Double(time) - offset) / scale, duration: Double(ticks) / scale))
        }
        switch timing {
        case .duration(let ticks):
            // count was checked against the period, so every index times ticks fits.
            for index in 0..<count {
                let time = presentationTimeOffset + UInt64(index) * ticks
                let left = (periodDuration * scale) - Double(UInt64(index) * ticks)
                try append(index: index, time: time, ticks: index == count - 1 ? min(ticks, UInt64(max(left, 1))) : ticks)
            }
        case .timeline(let runs):
            var index = 0
            for run in runs {
                for step in 0..<run.count {
                    try append(index: index, time: run.start + UInt64(step) * run.duration, ticks: run.duration)
                    index += 1
                }
            }
        }
        return SegmentList(initialization: initSegment, media: media)
    }
}
