/// One cue of a subtitle file: when it shows, in microseconds on its track's clock, and what,
/// as the demuxer gave it (WebVTT's identifier and settings beside the text).
struct SubtitleCue: Equatable {
    var start: Int64
    var end: Int64
    var text: [UInt8]
    var identifier: [UInt8] = []
    var settings: [UInt8] = []

    /// The same cue on a clock `offset` microseconds later.
    func shifted(by offset: Int64) -> SubtitleCue {
        var cue = self
        cue.start = start.addingReportingOverflow(offset).overflow ? start : start + offset
        cue.end = end.addingReportingOverflow(offset).overflow ? end : end + offset
        return cue
    }
}
