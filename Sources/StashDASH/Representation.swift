import StashCore

/// One encoding of an adaptation set's content, with the attributes it inherits from its
/// adaptation set already applied, and how its segments are addressed.
package struct Representation: Equatable, Sendable {
    package var id: String
    /// Bits per second (`@bandwidth`, required).
    package var bandwidth: UInt64
    package var width: Int?
    package var height: Int?
    package var frameRate: Double?
    package var codecs: String?
    package var mimeType: String?
    /// The representation's base URL: every BaseURL from the MPD's down to its own, resolved.
    package var baseURL: String
    package var addressing: SegmentAddressing

    package init(id: String, bandwidth: UInt64, width: Int?, height: Int?, frameRate: Double?, codecs: String?,
                 mimeType: String?, baseURL: String, addressing: SegmentAddressing) {
        self.id = id
        self.bandwidth = bandwidth
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.codecs = codecs
        self.mimeType = mimeType
        self.baseURL = baseURL
        self.addressing = addressing
    }

    /// The number of media segments, or nil for a SegmentBase representation (one file whose
    /// `sidx` has not been read).
    package var segmentCount: Int? {
        switch addressing {
        case .template(let template): template.count
        case .list(let list): list.media.count
        case .base: nil
        }
    }

    /// The container its files are in, by its MIME type: ISO-BMFF for `video/mp4`, `audio/mp4`
    /// and `application/mp4` (also text as `wvtt` or `stpp` samples), MPEG-TS for `video/mp2t`,
    /// WebVTT for `text/vtt`; nil for others (WebM, TTML as a plain file), which are not checked.
    package var container: SegmentContainer? {
        switch mimeType?.lowercased() {
        case "video/mp4", "audio/mp4", "application/mp4": .fragmentedMP4
        case "video/mp2t": .mpegTS
        case "text/vtt": .webVTT
        default: nil
        }
    }
}
