import CAVFormat
import StashCore

/// Writes a `RemuxJob` into one MP4 or Matroska file without re-encoding: the packets of
/// every media input copied into tracks of the file, interleaved by time, and the subtitle
/// cues as text tracks (Matroska: WebVTT or SubRip as they are; MP4: mov_text). Every input
/// is on one clock (an HLS stream's renditions share the MPEG-2 timestamps its segments
/// carry); the file starts at the earliest of their starts, so a stream whose first segment
/// begins at 1.4 s (ffmpeg's MPEG-TS), or a time range's first segment at 60 s, starts at 0.
package enum Remuxer {
    /// Writes the file to `descriptor` (open for writing, empty, the caller's to sync and
    /// close); `path` names it in messages. Returns the tracks written, in the file's order.
    /// Throws `RemuxError`, or what a source threw.
    package static func run(_ job: RemuxJob, to descriptor: Int32, path: String) throws -> [ExportTrack] {
        // libav's own log goes to the daemon's stderr: errors only (each is also thrown, with
        // its code); its warnings are about what it repairs.
        av_log_set_level(AV_LOG_ERROR)
        let output = try MediaOutput(descriptor: descriptor, path: path, container: job.format)
        var tracks: [ExportTrack] = []
        var lanes: [PacketLane] = []
        var audioOutputs: [(index: Int32, isDefault: Bool)] = []
        for media in job.media {
            let lane = try PacketLane(input: try MediaInput(source: media.source, name: media.name))
            for stream in lane.input.streams {
                guard let track = try addStream(copying: stream, of: media, to: output) else { continue }
                let index = Int32(output.format.pointee.nb_streams - 1)
                lane.outputs[stream.pointee.index] = PacketLane.Output(index: index, base: stream.pointee.time_base)
                if track.kind == .audio { audioOutputs.append((index, media.isDefault)) }
                tracks.append(track)
            }
            guard !lane.outputs.isEmpty else {
                let wanted = media.role == .main ? "video or audio stream" : "audio stream"
                throw RemuxError(call: media.name, code: 0, message: "has no \(wanted) this libavformat can read")
            }
            lanes.append(lane)
        }
        // One audio track plays by default: the rendition marked so, else the first.
        let defaultAudio = audioOutputs.first { $0.isDefault }?.index ?? audioOutputs.first?.index
        if let defaultAudio { output.stream(defaultAudio).pointee.disposition |= Int32(AV_DISPOSITION_DEFAULT) }

        var subtitleTracks: [(input: SubtitleTrackInput, cues: [SubtitleCue], index: Int32, encoder: MovTextEncoder?)] = []
        for subtitle in job.subtitles {
            let cues = try SubtitleReader.cues(of: subtitle)
            let (track, encoder) = try addSubtitleStream(subtitle, to: output)
            subtitleTracks.append((subtitle, cues, Int32(output.format.pointee.nb_streams - 1), encoder))
            tracks.append(track)
        }

        let origin = self.origin(of: lanes)
        let cueLanes = subtitleTracks.map { track in
            CueLane(cues: track.cues, shift: track.input.onMediaClock ? origin : track.input.startsAt, index: track.index, encoder: track.encoder,
                    name: track.input.name)
        }
        try output.begin()
        while true {
            for lane in lanes { try lane.fill() }
            var earliest: (time: Int64, lane: PacketLane?, cues: CueLane?)?
            for lane in lanes where lane.holding {
                let time = lane.time() &- origin
                if time < earliest?.time ?? .max { earliest = (time, lane, nil) }
            }
            for cues in cueLanes {
                guard let time = cues.time else { continue }
                if time < earliest?.time ?? .max { earliest = (time, nil, cues) }
            }
            guard let next = earliest else { break }
            if let lane = next.lane {
                try lane.take(origin: origin, into: output)
            } else {
                try next.cues?.take(into: output)
            }
        }
        try output.finish()
        return tracks
    }

    /// The earliest start of the streams taken, in microseconds; 0 when none is known.
    static func origin(of lanes: [PacketLane]) -> Int64 {
        var origin: Int64?
        for lane in lanes {
            for stream in lane.input.streams where lane.outputs[stream.pointee.index] != nil {
                let start = stream.pointee.start_time
                guard start != stash_av_nopts_value() else { continue }
                let time = av_rescale_q(start, stream.pointee.time_base, stash_av_time_base_q())
                // libav's answer for a value that does not fit.
                guard time != stash_av_nopts_value() else { continue }
                origin = min(origin ?? time, time)
            }
        }
        return origin ?? 0
    }

    /// A track of the file for `stream` of `media`, its parameters copied; nil for a stream
    /// not taken (a data stream, a cover picture, video of an audio rendition).
    private static func addStream(
        copying stream: UnsafeMutablePointer<AVStream>, of media: MediaTrackInput, to output: MediaOutput
    ) throws -> ExportTrack? {
        guard let parameters = stream.pointee.codecpar else { return nil }
        let kind: ExportTrack.Kind
        switch parameters.pointee.codec_type {
        case AVMEDIA_TYPE_VIDEO where media.role == .main:
            guard stream.pointee.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) == 0 else { return nil }
            kind = .video
        case AVMEDIA_TYPE_AUDIO:
            kind = .audio
        default:
            return nil
        }
        let codec = parameters.pointee.codec_id
        guard codec != AV_CODEC_ID_NONE else { return nil }
        let codecName = String(cString: avcodec_get_name(codec))
        guard output.canHold(codec) else {
            throw RemuxError(
                call: media.name, code: 0,
                message: "its \(kind.rawValue) is \(codecName), which \(output.container.rawValue) cannot hold without re-encoding; export to .mkv")
        }
        let copy = try output.addStream()
        try RemuxError.check(avcodec_parameters_copy(copy.pointee.codecpar, parameters), "avcodec_parameters_copy(\(media.name))")
        // The input container's tag (MPEG-TS's stream type) means nothing to the output's.
        copy.pointee.codecpar.pointee.codec_tag = 0
        copy.pointee.time_base = stream.pointee.time_base
        if kind == .video { copy.pointee.disposition |= Int32(AV_DISPOSITION_DEFAULT) }
        let language = LanguageCode.iso639Part2(media.language ?? metadata(stream.pointee.metadata, "language"), bibliographic: output.container == .mkv)
        try describe(copy, language: language, title: media.title)
        return ExportTrack(kind: kind, language: language, codec: codecName, title: media.title)
    }

    private static func addSubtitleStream(_ subtitle: SubtitleTrackInput, to output: MediaOutput) throws -> (ExportTrack, MovTextEncoder?) {
        let stream = try output.addStream()
        var encoder: MovTextEncoder?
        switch output.container {
        case .mp4:
            let movText = try MovTextEncoder(from: subtitle.format, name: subtitle.name)
            try movText.describe(stream.pointee.codecpar)
            encoder = movText
        case .mkv:
            stream.pointee.codecpar.pointee.codec_type = AVMEDIA_TYPE_SUBTITLE
            stream.pointee.codecpar.pointee.codec_id = subtitle.format.codec
        }
        stream.pointee.time_base = AVRational(num: 1, den: 1000)
        if subtitle.isDefault { stream.pointee.disposition |= Int32(AV_DISPOSITION_DEFAULT) }
        if subtitle.forced { stream.pointee.disposition |= Int32(AV_DISPOSITION_FORCED) }
        let language = LanguageCode.iso639Part2(subtitle.language, bibliographic: output.container == .mkv)
        try describe(stream, language: language, title: subtitle.title)
        let codec = String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
        return (ExportTrack(kind: .subtitles, language: language, codec: codec, title: subtitle.title), encoder)
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>, language: String, title: String) throws {
        try RemuxError.check(av_dict_set(&stream.pointee.metadata, "language", language, 0), "av_dict_set(language)")
        if !title.isEmpty {
            try RemuxError.check(av_dict_set(&stream.pointee.metadata, "title", title, 0), "av_dict_set(title)")
        }
    }

    private static func metadata(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
