/// One media segment with everything needed to fetch and decrypt it on its own, which is what
/// lets segments download in parallel and resume one by one.
public struct Segment: Equatable, Sendable {
    /// Resolved to an absolute http(s) URL.
    public var uri: String
    /// EXTINF seconds.
    public var duration: Double
    /// With the implicit offset already resolved, so each range can be requested alone.
    public var byteRange: ByteRange?
    /// EXT-X-DISCONTINUITY before this segment: encoding parameters or timestamps change here.
    public var discontinuity: Bool
    public var key: SegmentKey?
    public var map: InitSection?
    /// EXT-X-MEDIA-SEQUENCE plus the segment's index; the default AES-128 IV.
    public var sequenceNumber: UInt64

    public init(uri: String, duration: Double, byteRange: ByteRange? = nil, discontinuity: Bool = false,
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
