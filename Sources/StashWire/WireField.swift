/// One field of an encoded protobuf message, read without decoding it: its number, where its
/// key starts and, for a length-delimited field, the range of its bytes.
struct WireField {
    let number: UInt32
    let start: Int
    /// The bytes of a length-delimited field (a string, bytes, a message or a packed list).
    let value: Range<Int>?

    /// The field at `offset` before `end`, moving `offset` past it; nil at the end and at
    /// anything that is not a well-formed field (a truncated varint or length, a group, a
    /// field number above the 29 bits protobuf allows), so a reader never goes past `end`.
    static func next(in bytes: UnsafeRawBufferPointer, at offset: inout Int, end: Int) -> WireField? {
        let start = offset
        guard offset < end, let key = varint(in: bytes, at: &offset, end: end),
              key >> 3 > 0, key >> 3 <= 0x1FFF_FFFF else { return nil }
        let number = UInt32(key >> 3)
        switch key & 7 {
        case 0:
            guard varint(in: bytes, at: &offset, end: end) != nil else { return nil }
            return WireField(number: number, start: start, value: nil)
        case 1, 5:
            let width = key & 7 == 1 ? 8 : 4
            guard end - offset >= width else { return nil }
            offset += width
            return WireField(number: number, start: start, value: nil)
        case 2:
            guard let length = varint(in: bytes, at: &offset, end: end), length <= UInt64(end - offset) else { return nil }
            let value = offset..<offset + Int(length)
            offset = value.upperBound
            return WireField(number: number, start: start, value: value)
        default:
            return nil
        }
    }

    /// How many fields numbered `number` come between `start` and `end`: the index of a
    /// repeated field's element that starts at `end`.
    static func count(of number: UInt32, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var offset = start
        var count = 0
        while let field = next(in: bytes, at: &offset, end: end) {
            if field.number == number { count += 1 }
        }
        return count
    }

    /// A base-128 varint of at most 10 bytes.
    private static func varint(in bytes: UnsafeRawBufferPointer, at offset: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
