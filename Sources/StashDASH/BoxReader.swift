/// Big-endian reads from a box's bytes; nil past the end.
struct BoxReader {
    let bytes: [UInt8]
    var position = 0

    mutating func u8() -> UInt8? { read(1).map { UInt8(truncatingIfNeeded: $0) } }
    mutating func u16() -> UInt16? { read(2).map { UInt16(truncatingIfNeeded: $0) } }
    mutating func u32() -> UInt32? { read(4).map { UInt32(truncatingIfNeeded: $0) } }
    mutating func u64() -> UInt64? { read(8) }

    /// The next `count` bytes as they are.
    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, position >= 0, position <= bytes.count - count else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    private mutating func read(_ count: Int) -> UInt64? {
        guard position >= 0, position <= bytes.count - count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[position..<position + count] { value = value << 8 | UInt64(byte) }
        position += count
        return value
    }
}
