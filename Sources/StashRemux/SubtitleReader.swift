import CAVFormat

/// Reads the cues of a subtitle track with libavformat's WebVTT or SubRip demuxer, one file
/// at a time: an HLS rendition's segments (each moved by its X-TIMESTAMP-MAP onto the media's
/// clock), or a side-loaded file.
enum SubtitleReader {
    /// Every cue of the track's files, in order of start, in microseconds on the track's
    /// clock. A cue that spans a segment boundary is in both segments (RFC 8216 section
    /// 3.1.4); the copy in the next one is dropped.
    static func cues(of track: SubtitleTrackInput) throws -> [SubtitleCue] {
        var all: [SubtitleCue] = []
        var previous: [SubtitleCue] = []
        var index = 0
        while let file = try track.source.next() {
            defer { index += 1 }
            // A segment without a byte (nothing to show in its time) is no WebVTT file at all.
            if file.isEmpty { continue }
            let name = "\(track.name) file \(index + 1)"
            let offset = track.onMediaClock ? try TimestampMap.offset(of: file, name: name) : 0
            let cues = try read(file, format: track.format, name: name).map { $0.shifted(by: offset) }
            all += cues.filter { !previous.contains($0) }
            previous = cues
        }
        return all.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    /// The cues of one file, in microseconds from its own zero.
    static func read(_ file: [UInt8], format: SubtitleFormat, name: String) throws -> [SubtitleCue] {
        let input = try MediaInput(source: .chunks([file]), name: name, formatName: format.demuxerName, findStreamInfo: false)
        guard let stream = input.streams.first else { return [] }
        let base = stream.pointee.time_base
        let microseconds = stash_av_time_base_q()
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else {
            throw RemuxError(call: "av_packet_alloc", code: stash_averror(ENOMEM), message: "no memory reading \(name)")
        }
        var cues: [SubtitleCue] = []
        while try input.read(into: packet) {
            defer { av_packet_unref(packet) }
            let pts = packet.pointee.pts
            guard pts != stash_av_nopts_value(), packet.pointee.duration > 0 else { continue }
            let start = av_rescale_q(pts, base, microseconds)
            let end = av_rescale_q(pts.addingReportingOverflow(packet.pointee.duration).partialValue, base, microseconds)
            guard end > start else { continue }
            let text = packet.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(packet.pointee.size))) } ?? []
            cues.append(SubtitleCue(
                start: start, end: end, text: text, identifier: sideData(packet, AV_PKT_DATA_WEBVTT_IDENTIFIER),
                settings: sideData(packet, AV_PKT_DATA_WEBVTT_SETTINGS)))
        }
        return cues
    }

    static func sideData(_ packet: UnsafeMutablePointer<AVPacket>, _ type: AVPacketSideDataType) -> [UInt8] {
        var size = 0
        guard let data = av_packet_get_side_data(packet, type, &size), size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
