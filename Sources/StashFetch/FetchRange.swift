/// A part of a resource to fetch on its own (an HLS EXT-X-BYTERANGE segment): `length` bytes
/// from `offset`. The local file holds only these bytes.
package struct FetchRange: Sendable, Equatable {
    package var offset: Int64
    package var length: Int64

    package init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }

    /// The `Range` header's bounds for the bytes from `skip` on; nil when they are not
    /// positions in a file (negative, empty, or past Int64.max). The ranges come from
    /// playlists, so this is checked here again rather than trusted.
    func bounds(skipping skip: Int64) -> (first: Int64, last: Int64)? {
        guard offset >= 0, length > 0, skip >= 0, skip < length else { return nil }
        let (first, firstOverflow) = offset.addingReportingOverflow(skip)
        let (end, endOverflow) = offset.addingReportingOverflow(length)
        guard !firstOverflow, !endOverflow else { return nil }
        return (first, end - 1)
    }
}
