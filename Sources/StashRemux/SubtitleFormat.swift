import CAVFormat

/// The text formats stash keeps: WebVTT (HLS subtitle renditions, `.vtt` text tracks) and
/// SubRip (`.srt` text tracks).
package enum SubtitleFormat: Sendable, Equatable {
    case webvtt, subrip

    /// libavformat's demuxer of it.
    var demuxerName: String {
        switch self {
        case .webvtt: return "webvtt"
        case .subrip: return "srt"
        }
    }

    /// The codec its cues are, as Matroska stores them.
    var codec: AVCodecID {
        switch self {
        case .webvtt: return AV_CODEC_ID_WEBVTT
        case .subrip: return AV_CODEC_ID_SUBRIP
        }
    }
}
