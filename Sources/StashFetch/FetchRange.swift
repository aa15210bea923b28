/// A part of a resource to fetch on its own (an HLS EXT-X-BYTERANGE segment): `length` bytes
/// from `offset`. The local file holds only these bytes.
public struct FetchRange: Sendable, Equatable {
    public var offset: Int64
    public var length: Int64

    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }
}
