import CStashProto
import StashCore

/// Holds every `string` field of an encoded message to the protocol's rule: valid UTF-8
/// without NUL. A field that breaks it is refused with its path, its value and the byte.
///
/// protobuf-c hands a string to us as a NUL-terminated `char *`, so a NUL inside it cuts the
/// string silently (id `a\0b` reads as `a`), and protobuf-c 1.4 does not check UTF-8. The
/// unpacked struct cannot show either: the wire length is gone. So the payload is walked once,
/// before the struct is read, with the message's own protobuf-c descriptor, which says of each
/// field number whether it is a string, a nested message or anything else; no hand-kept list
/// of string fields can fall behind the schema. (Declaring the fields `bytes` instead would be
/// wire compatible, but would turn every string of the generated C and Python APIs into bytes
/// for the clients' users.)
enum StringFieldCheck {
    /// The schema has no recursive message, so its depth is a few levels; the bound is for a
    /// later schema that might have one.
    static let maxDepth = 32
    /// A refused value is shown up to this many bytes.
    static let shownBytes = 64
    static let rule = "a string must be UTF-8 without NUL"

    /// Throws `StashError.invalidArgument` naming the first string field that is not UTF-8 or
    /// holds a NUL, as a path from the message's name (`Request.add_download.files[2].path`).
    static func check(_ payload: UnsafeRawBufferPointer, message descriptor: UnsafePointer<ProtobufCMessageDescriptor>) throws {
        do {
            try walk(payload, 0..<payload.count, descriptor, depth: 0)
        } catch let refusal as Refusal {
            let path = ([String(cString: descriptor.pointee.short_name)] + refusal.path).joined(separator: ".")
            throw StashError.invalidArgument("\(path): \(refusal.reason); \(rule)")
        }
    }

    /// The decoded message is a protobuf-c struct whose first member is `ProtobufCMessage`.
    static func check<Message>(_ payload: UnsafeRawBufferPointer, of message: UnsafePointer<Message>) throws {
        let base = UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
        try check(payload, message: base.pointee.descriptor)
    }

    private struct Refusal: Error {
        var path: [String]
        var reason: String
    }

    /// protobuf-c accepted the payload before this runs, so the walk meets only well-formed
    /// fields; anything else ends it quietly (`WireField.next`) rather than trapping.
    private static func walk(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int
    ) throws {
        guard depth < maxDepth else { throw Refusal(path: [], reason: "messages nested deeper than \(maxDepth)") }
        var offset = range.lowerBound
        while let field = WireField.next(in: bytes, at: &offset, end: range.upperBound) {
            guard let value = field.value,
                  let known = protobuf_c_message_descriptor_get_field(descriptor, field.number) else { continue }
            do {
                switch known.pointee.type {
                case PROTOBUF_C_TYPE_STRING:
                    if let reason = problem(in: UnsafeRawBufferPointer(rebasing: bytes[value])) {
                        throw Refusal(path: [], reason: reason)
                    }
                case PROTOBUF_C_TYPE_MESSAGE:
                    let nested = known.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
                    try walk(bytes, value, nested, depth: depth + 1)
                default:
                    break
                }
            } catch var refusal as Refusal {
                var name = String(cString: known.pointee.name)
                if known.pointee.label == PROTOBUF_C_LABEL_REPEATED {
                    name += "[\(WireField.count(of: field.number, in: bytes, from: range.lowerBound, to: field.start))]"
                }
                refusal.path.insert(name, at: 0)
                throw refusal
            }
        }
    }

    /// What is wrong with a string's bytes, or nil: the first NUL or the first byte that does not
    /// start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing
    /// above U+10FFFF), whichever comes first.
    static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead == 0 { return "\(shown(bytes)) holds a NUL at byte \(index)" }
            let length = UTF8Sequence.length(in: bytes, at: index)
            if length == 0 { return "\(shown(bytes)) is not UTF-8 at byte \(index)" }
            index += length
        }
        return nil
    }

    /// The value as a quoted, printable prefix with its length: `"nul1\0evil" (9 bytes)`.
    static func shown(_ bytes: UnsafeRawBufferPointer) -> String {
        var text = "\""
        for byte in bytes.prefix(shownBytes) {
            switch byte {
            case 0: text += "\\0"
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: text += String(UnicodeScalar(byte))
            default: text += "\\x" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
            }
        }
        text += bytes.count > shownBytes ? "...\"" : "\""
        return text + " (\(bytes.count) bytes)"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
