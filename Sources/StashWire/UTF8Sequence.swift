/// Well-formed UTF-8 as RFC 3629 section 4 defines it, a byte sequence at a time.
enum UTF8Sequence {
    /// The length of the well-formed sequence starting at `index` (1 to 4), or 0 when the
    /// bytes there start none: a stray continuation byte, an overlong form (C0, C1, E0 80..9F,
    /// F0 80..8F), a surrogate (ED A0..BF), a code point above U+10FFFF (F4 90.., F5..FF) or
    /// a sequence cut short.
    static func length(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard bytes.count - index >= length, second.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) {
            return 0
        }
        return length
    }
}
