import Foundation
import CStashProto
import StashCore

/// Conversions between Swift values and the scalar fields of the protobuf-c structs. Decoding
/// checks what the wire can carry but Swift cannot (an unsigned 64-bit number above Int64.max,
/// a string that is not UTF-8) and throws an error that names the field and the value.
enum WireValue {
    static func string(_ pointer: UnsafePointer<CChar>?, field: StaticString) throws -> String {
        guard let pointer else { return "" }
        guard let string = String(validatingCString: pointer) else {
            throw StashError.invalidArgument("\(field): the string is not valid UTF-8")
        }
        return string
    }

    static func int64(_ value: UInt64, field: StaticString) throws -> Int64 {
        guard let result = Int64(exactly: value) else {
            throw StashError.invalidArgument("\(field): value \(value) is above the limit \(Int64.max)")
        }
        return result
    }

    static func bytes(_ value: ProtobufCBinaryData, field: StaticString) throws -> [UInt8] {
        guard value.len > 0 else { return [] }
        guard let data = value.data else {
            throw StashError.invalidArgument("\(field): \(value.len) bytes announced and none given")
        }
        return Array(UnsafeBufferPointer(start: data, count: value.len))
    }

    /// The wire says "unknown" with -1.
    static func optional(_ value: Int64) -> Int64? {
        value < 0 ? nil : value
    }

    static func bool(_ value: protobuf_c_boolean) -> Bool {
        value != 0
    }

    static func bool(_ value: Bool) -> protobuf_c_boolean {
        value ? 1 : 0
    }

    /// Unix milliseconds.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The elements of a repeated field, converted one by one.
    static func elements<Element, Result>(
        _ start: UnsafeMutablePointer<Element>?, count: Int, _ transform: (Element) throws -> Result
    ) rethrows -> [Result] {
        try UnsafeBufferPointer(start: start, count: count).map(transform)
    }

    /// A submessage that protobuf-c always allocates inside a repeated field.
    static func message<Message>(_ pointer: UnsafeMutablePointer<Message>?, field: StaticString) throws -> UnsafePointer<Message> {
        guard let pointer else { throw StashError.invalidArgument("\(field): the message is not set") }
        return UnsafePointer(pointer)
    }
}
