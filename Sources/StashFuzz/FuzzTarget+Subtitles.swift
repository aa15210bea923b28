#if DEBUG
@testable import StashRemux

extension FuzzTarget {
    /// A WebVTT segment of a subtitle rendition (or a side-loaded .vtt or .srt file), as an
    /// export to one file reads it: its X-TIMESTAMP-MAP, its cues through libavformat's
    /// demuxers, and the cues moved onto the file's clock by the largest shifts there are.
    static func subtitles(_ bytes: UnsafeRawBufferPointer) {
        let file = Array(bytes)
        _ = try? TimestampMap.offset(of: file, name: "fuzz")
        for line in file.split(separator: UInt8(ascii: "\n")).prefix(64) {
            _ = TimestampMap.cueTime(String(decoding: line, as: UTF8.self))
        }
        let track = SubtitleTrackInput(source: .chunks([file, file]), name: "fuzz", format: .webvtt, language: "en", onMediaClock: true)
        let cues = (try? SubtitleReader.cues(of: track)) ?? []
        for shift in [Int64.min, -1, 0, Int64.max] {
            _ = CueLane(cues: cues, shift: shift, index: 0, encoder: nil, name: "fuzz").time
        }
        _ = try? SubtitleReader.read(file, format: .subrip, name: "fuzz")
    }
}
#endif
