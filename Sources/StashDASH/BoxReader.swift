/// Big-endian reads from a box's bytes; nil past the end.
struct BoxReader {
    let bytes: [UInt8]
    var position = 0

    mutating func u16() -> UInt16? { read(2).map { UInt16(truncatingIfNeeded: $0) } }
    mutating func u32() -> UInt32? { read(4).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func u64() -> UInt64? { read(8) }

    private mutating func read(_ count: Int) -> UInt64? {
        guard position >= 0, position <= bytes.count - count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[position..<position + count] { value = value << 8 | UInt64(byte) }
        position += count
        return value
    }
}
