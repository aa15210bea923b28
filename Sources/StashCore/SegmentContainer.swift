/// The container of an HLS segment, which says what its first bytes must be. RFC 8216
/// section 3: a segment without EXT-X-MAP is MPEG-TS, packed audio or WebVTT; one with it
/// (and its init section) is fragmented MP4.
package enum SegmentContainer: String, CaseIterable, Hashable, Sendable {
    case mpegTS = "ts"
    case fragmentedMP4 = "fmp4"
    case packedAudio = "packed-audio"
    case webVTT = "webvtt"

    /// What a message says was expected.
    var phrase: String {
        switch self {
        case .mpegTS: return "an MPEG-TS segment (sync byte 0x47 at 0, 188 and 376)"
        case .fragmentedMP4: return "an fMP4 segment (ISO-BMFF boxes)"
        case .packedAudio: return "a packed audio segment (an ID3 tag or ADTS/MPEG audio frames)"
        case .webVTT: return "a WebVTT segment (a WEBVTT header)"
        }
    }

    /// Whether the first bytes of a body (all of it when `complete`) fit the container.
    package func accepts(_ prefix: [UInt8], complete: Bool) -> Bool {
        switch self {
        case .mpegTS:
            return ContentSignature.isMPEGTS(prefix)
        case .fragmentedMP4:
            return ContentSignature.isoBoxType(prefix) != nil
        case .packedAudio:
            return ContentSignature.startsWith(prefix, "ID3") || ContentSignature.audioFrame(prefix) != nil
        case .webVTT:
            return ContentSignature.isWebVTT(prefix)
        }
    }
}
