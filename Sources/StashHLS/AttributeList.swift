/// The `NAME=value,NAME="value"` list of a tag (RFC 8216 section 4.2), with typed readers
/// that throw naming the tag, the attribute and the value.
struct AttributeList {
    private struct Value {
        var text: Substring
        var quoted: Bool
    }

    let tag: Substring
    let line: Int
    private var values: [Substring: Value] = [:]

    /// Section 4.2 allows no whitespace in a list, but packagers write `PROGRAM-ID=1, BANDWIDTH=…`
    /// and every major player reads it; so attributes are separated by commas and spaces in any
    /// mix, and an unquoted value ends at either (the RFC's unquoted values hold neither).
    init(_ text: Substring, tag: Substring, line: Int) throws {
        self.tag = tag
        self.line = line
        var rest = text.drop(while: Self.isSeparator)
        while !rest.isEmpty {
            let nameEnd = rest.firstIndex { $0 == "=" || Self.isSeparator($0) } ?? rest.endIndex
            guard nameEnd != rest.endIndex, rest[nameEnd] == "=" else {
                throw HLSError(.invalidAttribute, line: line, "\(tag) attribute '\(rest[..<nameEnd].prefix(80))' has no '='")
            }
            let name = rest[..<nameEnd]
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "-") }) else {
                throw HLSError(.invalidAttribute, line: line, "\(tag) attribute name '\(name.prefix(80))' must be A-Z, 0-9 and '-'")
            }
            rest = rest[rest.index(after: nameEnd)...]
            let value: Value
            if rest.first == "\"" {
                // A quoted string runs to the next quote; commas and spaces inside it (CODECS) are content.
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) has an unterminated quoted string")
                }
                value = Value(text: body[..<close], quoted: true)
                rest = body[body.index(after: close)...]
                if let next = rest.first, !Self.isSeparator(next) {
                    throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) is followed by '\(rest.prefix(20))' instead of ','")
                }
            } else {
                let end = rest.firstIndex(where: Self.isSeparator) ?? rest.endIndex
                value = Value(text: rest[..<end], quoted: false)
                rest = rest[end...]
            }
            rest = rest.drop(while: Self.isSeparator)
            // Section 4.2 forbids repeats; taking either copy would silently guess.
            guard values.updateValue(value, forKey: name) == nil else {
                throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) appears twice")
            }
        }
    }

    private static func isSeparator(_ character: Character) -> Bool {
        character == "," || character == " " || character == "\t"
    }

    func quotedString(_ name: Substring) throws -> String? {
        guard let value = values[name] else { return nil }
        guard value.quoted else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) '\(value.text.prefix(80))' must be a quoted string")
        }
        return String(value.text)
    }

    func enumerated(_ name: Substring) throws -> Substring? {
        guard let value = values[name] else { return nil }
        guard !value.quoted, !value.text.isEmpty else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) '\(value.text.prefix(80))' must be an unquoted enumerated string")
        }
        return value.text
    }

    /// `YES`/`NO` attributes, absent meaning NO.
    func flag(_ name: Substring) throws -> Bool {
        switch try enumerated(name) {
        case nil, "NO": return false
        case "YES": return true
        case let other?: throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) is '\(other.prefix(80))'; it must be YES or NO")
        }
    }

    func decimalInteger(_ name: Substring) throws -> UInt64? {
        guard let value = values[name] else { return nil }
        guard !value.quoted, let number = Self.decimalInteger(value.text) else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) '\(value.text.prefix(80))' must be a decimal integer below 2^64")
        }
        return number
    }

    func decimalFloat(_ name: Substring) throws -> Double? {
        guard let value = values[name] else { return nil }
        guard !value.quoted, let number = Self.decimalFloat(value.text), number >= 0 else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) '\(value.text.prefix(80))' must be a non-negative decimal number")
        }
        return number
    }

    func resolution(_ name: Substring) throws -> Resolution? {
        guard let value = values[name] else { return nil }
        let parts = value.text.split(separator: "x", omittingEmptySubsequences: false)
        guard !value.quoted, parts.count == 2,
              let width = Self.decimalInteger(parts[0]), let height = Self.decimalInteger(parts[1]),
              width <= UInt64(Int32.max), height <= UInt64(Int32.max) else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) attribute \(name) '\(value.text.prefix(80))' must be <width>x<height>")
        }
        return Resolution(width: Int(width), height: Int(height))
    }

    /// A hexadecimal-sequence (`0x...`), as bytes; nil if the text is not one.
    func hexSequence(_ name: Substring) -> (text: Substring, bytes: [UInt8]?)? {
        guard let value = values[name] else { return nil }
        guard !value.quoted, value.text.hasPrefix("0x") || value.text.hasPrefix("0X") else { return (value.text, nil) }
        let digits = Array(value.text.dropFirst(2).utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return (value.text, nil) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.hexDigit(digits[index]), let low = Self.hexDigit(digits[index + 1]) else { return (value.text, nil) }
            bytes.append(high << 4 | low)
        }
        return (value.text, bytes)
    }

    /// The attribute, or an error naming the tag and the attribute that is required.
    func required<T>(_ name: Substring, _ read: (Substring) throws -> T?) throws -> T {
        guard let value = try read(name) else {
            throw HLSError(.invalidAttribute, line: line, "\(tag) has no \(name) attribute; it is required")
        }
        return value
    }

    /// Digits only: `UInt64("+1")` would accept a sign that section 4.2 does not allow.
    static func decimalInteger(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    /// `[-]digits[.digits]`: `Double()` alone would also take `nan`, `inf` and hex floats.
    static func decimalFloat(_ text: Substring) -> Double? {
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : text
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !parts[0].isEmpty, unsigned.utf8.count <= 64,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              parts.count == 1 || !parts[1].isEmpty else { return nil }
        return Double(text)
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
