import Foundation
import CStashProto
import StashCore

/// Conversions between Swift values and the scalar fields of the protobuf-c structs. Decoding
/// checks what the wire can carry but Swift cannot (an unsigned 64-bit number above Int64.max,
/// a string that is not UTF-8) and numbers no record can hold (a percent above 100, a count
/// above its total, a negative size other than -1), and throws an error that names the field
/// and the value.
enum WireValue {
    /// `StringFieldCheck` has already refused a string that is not UTF-8 or holds a NUL in the
    /// payload; the check here keeps a struct from any other source from trapping.
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

    /// The wire says "unknown" with -1 (PROTOCOL.md documents which fields); anything below
    /// it is a value no record can hold.
    static func optional(_ value: Int64, field: StaticString) throws -> Int64? {
        guard value >= -1 else {
            throw StashError.invalidArgument("\(field): value \(value) is below -1, its only negative value (unknown)")
        }
        return value < 0 ? nil : value
    }

    /// An integer percent, 0 to 100.
    static func percent(_ value: UInt32, field: StaticString) throws -> Int {
        guard value <= 100 else { throw StashError.invalidArgument("\(field): value \(value) is above 100 (a percent)") }
        return Int(value)
    }

    /// A count of things done and its total: done cannot be above the total.
    static func counts(done: UInt32, total: UInt32, field: StaticString, totalField: StaticString) throws -> (done: Int, total: Int) {
        guard done <= total else {
            throw StashError.invalidArgument("\(field): value \(done) is above \(totalField) \(total)")
        }
        return (Int(done), Int(total))
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
