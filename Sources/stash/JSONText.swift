import Foundation

/// Writes the JSON the CLI prints. Foundation's JSONSerialization sorts keys with ICU
/// collation, which made `add --from-file --wait` of 2,000 downloads spend most of its CPU
/// sorting; the CLI's objects are small and their keys ASCII, so plain byte order does.
enum JSONText {
    static func append(_ value: Any, to text: inout String) {
        // The common types first, by their metadata: a failing `as` cast from Any is slow
        // (it looks for bridges and wrappers), and going down the switch below cost a record
        // of 20 fields about 40 of them, half of `add --from-file --wait`'s CPU for 2,000
        // downloads.
        let type = type(of: value)
        if type == String.self, let string = value as? String {
            appendString(string, to: &text)
            return
        }
        if type == Int.self, let number = value as? Int {
            text += String(number)
            return
        }
        if type == Int64.self, let number = value as? Int64 {
            text += String(number)
            return
        }
        if type == Bool.self, let bool = value as? Bool {
            text += bool ? "true" : "false"
            return
        }
        if type == NSNull.self {
            text += "null"
            return
        }
        if type == [String: Any].self, let object = value as? [String: Any] {
            appendObject(object, to: &text)
            return
        }
        switch value {
        case let string as String:
            appendString(string, to: &text)
        case let bool as Bool:
            text += bool ? "true" : "false"
        case let number as Int:
            text += String(number)
        case let number as Int64:
            text += String(number)
        case let number as UInt64:
            text += String(number)
        case let number as Int32:
            text += String(number)
        case let number as Double:
            text += number.isFinite ? String(number) : "null"
        case let object as [String: Any]:
            appendObject(object, to: &text)
        case let array as [Any]:
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                append(element, to: &text)
            }
            text += "]"
        default:
            text += "null"
        }
    }

    private static func appendObject(_ object: [String: Any], to text: inout String) {
        text += "{"
        for (index, member) in object.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += "," }
            appendString(member.key, to: &text)
            text += ":"
            append(member.value, to: &text)
        }
        text += "}"
    }

    /// A JSON string literal (RFC 8259 §7): quote, backslash and control characters escaped.
    static func appendString(_ string: String, to text: inout String) {
        text += "\""
        // Ids, states, URLs and paths seldom hold a character to escape: such a string goes in
        // whole. Appending it a scalar at a time was a fifth of `add --wait`'s CPU for 2,000
        // downloads. The bytes that need escaping are ASCII, so the UTF-8 view finds them all.
        guard string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            text += string
            text += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
