import NIOCore

/// Hand-written protobuf bytes, independent of protobuf-c, so the tests can build payloads the
/// Swift API cannot make (unknown fields, unknown enum numbers) and check the bytes on the wire.
struct ProtobufBytes {
    private(set) var bytes: [UInt8] = []

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7f)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            out.append(byte)
        } while value != 0
        return out
    }

    mutating func varint(_ field: Int, _ value: UInt64) {
        bytes += Self.varint(UInt64(field << 3)) + Self.varint(value)
    }

    mutating func bytes(_ field: Int, _ payload: [UInt8]) {
        bytes += Self.varint(UInt64(field << 3 | 2)) + Self.varint(UInt64(payload.count)) + payload
    }

    mutating func string(_ field: Int, _ value: String) {
        bytes(field, Array(value.utf8))
    }

    mutating func message(_ field: Int, _ build: (inout ProtobufBytes) -> Void) {
        var inner = ProtobufBytes()
        build(&inner)
        bytes(field, inner.bytes)
    }

    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }
}

/// Reads the fields of one message: varints as numbers, length-delimited fields as bytes.
struct ProtobufFields {
    enum Value: Equatable {
        case varint(UInt64)
        case bytes([UInt8])
    }

    private(set) var fields: [(number: Int, value: Value)] = []

    init(_ bytes: [UInt8]) throws {
        var index = 0
        func readVarint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                result |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
        }
        while index < bytes.count {
            let key = try readVarint()
            switch key & 7 {
            case 0:
                fields.append((Int(key >> 3), .varint(try readVarint())))
            case 2:
                let length = Int(try readVarint())
                guard index + length <= bytes.count else { throw Malformed() }
                fields.append((Int(key >> 3), .bytes(Array(bytes[index..<index + length]))))
                index += length
            default:
                throw Malformed()
            }
        }
    }

    struct Malformed: Error {}

    /// The varint of a field; nil when absent (proto3 leaves out zero values).
    func varint(_ number: Int) -> UInt64? {
        for field in fields.reversed() where field.number == number {
            if case .varint(let value) = field.value { return value }
        }
        return nil
    }

    func message(_ number: Int) throws -> ProtobufFields {
        for field in fields.reversed() where field.number == number {
            if case .bytes(let value) = field.value { return try ProtobufFields(value) }
        }
        throw Malformed()
    }

    func string(_ number: Int) -> String? {
        for field in fields.reversed() where field.number == number {
            if case .bytes(let value) = field.value { return String(decoding: value, as: UTF8.self) }
        }
        return nil
    }
}
