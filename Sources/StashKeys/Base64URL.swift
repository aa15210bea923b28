/// Base64url (RFC 4648 section 5), the encoding of ClearKey key ids and keys. Key ids are
/// compared as strings, so each byte string has exactly one accepted spelling apart from
/// padding: encoding never pads, and decoding refuses leftover bits that are not zero.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Every byte's value in the alphabet, or 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, symbol) in alphabet.enumerated() { values[Int(symbol)] = UInt8(index) }
        return values
    }()

    /// `bytes` in base64url without padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var symbols: [UInt8] = []
        symbols.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0...count {
                symbols.append(alphabet[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: symbols, as: UTF8.self)
    }

    /// The bytes `text` encodes, with or without padding; nil for '+', '/', whitespace, any
    /// other character outside the alphabet, misplaced or wrong padding, a length no
    /// encoding has, or nonzero leftover bits.
    package static func decode(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        if symbols.last == UInt8(ascii: "=") {
            guard symbols.count % 4 == 0 else { return nil }
            symbols.removeLast()
            if symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
            // Padding only completes a final group of 2 or 3 symbols.
            guard symbols.count % 4 >= 2 else { return nil }
        }
        guard symbols.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(symbols.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            let value = values[Int(symbol)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        guard group == 0 else { return nil }
        return bytes
    }
}
