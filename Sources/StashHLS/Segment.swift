/// One media segment with everything needed to fetch and decrypt it on its own, which is what
/// lets segments download in parallel and resume one by one.
package struct Segment: Equatable, Sendable {
    /// Resolved to an absolute http(s) URL.
    package var uri: String
    /// EXTINF seconds.
    package var duration: Double
    /// With the implicit offset already resolved, so each range can be requested alone.
    package var byteRange: ByteRange?
    /// EXT-X-DISCONTINUITY before this segment: encoding parameters or timestamps change here.
    package var discontinuity: Bool
    package var key: SegmentKey?
    package var map: InitSection?
    /// EXT-X-MEDIA-SEQUENCE plus the segment's index; the default AES-128 IV.
    package var sequenceNumber: UInt64

    package init(uri: String, duration: Double, byteRange: ByteRange? = nil, discontinuity: Bool = false,
                key: SegmentKey? = nil, map: InitSection? = nil, sequenceNumber: UInt64) {
        self.uri = uri
        self.duration = duration
        self.byteRange = byteRange
        self.discontinuity = discontinuity
        self.key = key
        self.map = map
        self.sequenceNumber = sequenceNumber
    }
}
