/// One ISO BMFF box found in a file's bytes (ISO/IEC 14496-12 section 4.2): its type and where
/// it and its payload lie. Every size is checked against the bytes around it, so a hostile size
/// is an error, never a read past the end.
struct MP4Box {
    var type: String
    /// The offset of the box's first byte (its size field).
    var start: Int
    /// The offset of its payload, after the size, the type and any 64-bit size.
    var payload: Int
    /// The offset just past the box.
    var end: Int

    /// The boxes that fill `range` of `bytes` one after the other.
    /// - Throws: `CENCError(.malformed)` when a box's size is below its header or passes the
    ///   end of `range` (the container named by `container`).
    static func children(of bytes: [UInt8], in range: Range<Int>, container: String) throws -> [MP4Box] {
        var boxes: [MP4Box] = []
        var position = range.lowerBound
        while position < range.upperBound {
            guard range.upperBound - position >= 8 else {
                throw CENCError(.malformed, "\(range.upperBound - position) bytes at offset \(position) of \(container) are too few for a box header (8)")
            }
            var reader = BoxReader(bytes: bytes, position: position)
            let size32 = reader.u32() ?? 0
            let type = String(decoding: bytes[position + 4..<position + 8].map { $0 < 0x20 || $0 > 0x7e ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
            reader.position = position + 8
            var header = 8
            var size: UInt64 = UInt64(size32)
            if size32 == 1 {
                guard let large = reader.u64(), range.upperBound - position >= 16 else {
                    throw CENCError(.malformed, "box '\(type)' at offset \(position) of \(container) has no room for its 64-bit size")
                }
                header = 16
                size = large
            } else if size32 == 0 {
                size = UInt64(range.upperBound - position)
            }
            guard size >= UInt64(header), size <= UInt64(range.upperBound - position) else {
                throw CENCError(.malformed, "box '\(type)' at offset \(position) of \(container) has size \(size), outside \(header) to the \(range.upperBound - position) bytes left")
            }
            boxes.append(MP4Box(type: type, start: position, payload: position + header, end: position + Int(size)))
            position += Int(size)
        }
        return boxes
    }

    /// The boxes inside this one, from `skip` bytes into its payload.
    func children(of bytes: [UInt8], skip: Int = 0) throws -> [MP4Box] {
        guard end - payload >= skip else {
            throw CENCError(.malformed, "box '\(type)' at offset \(start) holds \(end - payload) bytes, fewer than the \(skip) before its boxes")
        }
        return try Self.children(of: bytes, in: payload + skip..<end, container: "'\(type)'")
    }

    /// A reader at the payload, and the payload's length for checks.
    func reader(_ bytes: [UInt8]) -> BoxReader { BoxReader(bytes: Array(bytes[payload..<end])) }

    /// Writes `type` (four ASCII letters) over the box's own.
    func rename(_ bytes: inout [UInt8], to type: String) {
        let letters = Array(type.utf8)
        for index in 0..<4 { bytes[start + 4 + index] = letters[index] }
    }
}
