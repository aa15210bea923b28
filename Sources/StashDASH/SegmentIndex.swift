/// An ISO BMFF `sidx` box (ISO/IEC 14496-12 section 8.16.3) read into byte ranges: how a
/// SegmentBase representation, one file, is cut into segments.
package struct SegmentIndex: Equatable, Sendable {
    package struct Entry: Equatable, Sendable {
        package var range: MediaRange
        /// Seconds from the period's start.
        package var start: Double
        package var duration: Double
    }

    package var entries: [Entry]

    /// Reads the first `sidx` box of `bytes`, which were fetched from file offset `offset` (the
    /// representation's indexRange). Segment times are counted from `presentationTimeOffset`
    /// in the box's own timescale. A box that refers to further `sidx` boxes is refused.
    package init(parsing bytes: [UInt8], offset: UInt64, presentationTimeOffset: UInt64) throws {
        var reader = BoxReader(bytes: bytes)
        var boxStart = 0
        while true {
            guard let size32 = reader.u32(), let type = reader.u32() else {
                throw DASHError(.invalidIndex, "no sidx box in the \(bytes.count) bytes of the index range")
            }
            var size = UInt64(size32)
            if size32 == 1 {
                guard let large = reader.u64() else { throw DASHError(.invalidIndex, "a box's 64-bit size is truncated") }
                size = large
            } else if size32 == 0 {
                size = UInt64(bytes.count - boxStart)
            }
            guard size >= UInt64(reader.position - boxStart), size <= UInt64(bytes.count - boxStart) || type == Self.sidx else {
                throw DASHError(.invalidIndex, "a box of \(size) bytes at byte \(boxStart) of the index range does not fit it")
            }
            if type == Self.sidx {
                let limit = MediaRange.limit
                guard offset <= limit, UInt64(boxStart) <= limit - offset, size <= limit - offset - UInt64(boxStart) else {
                    throw DASHError(.invalidIndex, "the sidx box of \(size) bytes ends past the largest file position")
                }
                entries = try Self.entries(&reader, boxEnd: offset + UInt64(boxStart) + size, presentationTimeOffset: presentationTimeOffset)
                return
            }
            boxStart += Int(size)
            reader.position = boxStart
        }
    }

    private static let sidx: UInt32 = 0x7369_6478

    private static func entries(_ reader: inout BoxReader, boxEnd: UInt64, presentationTimeOffset: UInt64) throws -> [Entry] {
        guard let versionAndFlags = reader.u32(), reader.u32() != nil, let timescale = reader.u32() else {
            throw DASHError(.invalidIndex, "the sidx box is truncated")
        }
        let version = versionAndFlags >> 24
        guard version <= 1 else { throw DASHError(.invalidIndex, "the sidx box is version \(version); versions 0 and 1 are read") }
        guard timescale > 0 else { throw DASHError(.invalidIndex, "the sidx box's timescale is 0") }
        let earliest: UInt64?
        let firstOffset: UInt64?
        if version == 0 {
            (earliest, firstOffset) = (reader.u32().map(UInt64.init), reader.u32().map(UInt64.init))
        } else {
            (earliest, firstOffset) = (reader.u64(), reader.u64())
        }
        guard let earliest, let firstOffset, reader.u16() != nil, let count = reader.u16() else {
            throw DASHError(.invalidIndex, "the sidx box is truncated")
        }
        guard count > 0 else { throw DASHError(.invalidIndex, "the sidx box lists no segments") }
        var position = boxEnd
        guard firstOffset <= MediaRange.limit - position else {
            throw DASHError(.invalidIndex, "the sidx box's first_offset \(firstOffset) is past the largest file position")
        }
        position += firstOffset
        var time = earliest
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        let scale = Double(timescale)
        for number in 0..<Int(count) {
            guard let reference = reader.u32(), let duration = reader.u32(), reader.u32() != nil else {
                throw DASHError(.invalidIndex, "the sidx box lists \(count) references but ends after \(number)")
            }
            guard reference >> 31 == 0 else {
                throw DASHError(.unsupported, "the sidx box refers to further sidx boxes (a hierarchical index), which stash does not read")
            }
            let size = UInt64(reference & 0x7FFF_FFFF)
            guard size > 0, size <= MediaRange.limit - position, time <= UInt64.max - UInt64(duration) else {
                throw DASHError(.invalidIndex, "sidx reference \(number + 1) of \(size) bytes at \(position) passes the largest file position or time")
            }
            entries.append(Entry(range: MediaRange(offset: position, length: size),
                                 start: (Double(time) - Double(presentationTimeOffset)) / scale, duration: Double(duration) / scale))
            position += size
            time += UInt64(duration)
        }
        return entries
    }
}
