import CStashProto
import NIOCore
import StashCore

/// Turns messages into frames and frames into messages. The protobuf-c structs stay inside
/// this module; callers see only the Swift values.
///
/// A frame is a u32 big-endian length, then that many bytes of one protobuf message. The
/// `encode` functions write the whole frame (prefix included) into the buffer; the `decode`
/// functions take the payload only (FrameDecoder has already removed the prefix and checked it).
package enum WireCodec {
    /// Frames larger than this are refused before anything is allocated for them.
    package static let defaultMaxFrameLength = 4 * 1024 * 1024

    /// Writes the length prefix, then lets protobuf-c pack straight into the buffer's writable
    /// bytes, so the message is never copied through an intermediate array.
    static func writeFrame(
        into buffer: inout ByteBuffer, packedSize: Int, pack: (UnsafeMutablePointer<UInt8>) -> Int
    ) {
        precondition(packedSize <= Int(UInt32.max), "a message of \(packedSize) bytes does not fit a u32 length prefix")
        buffer.reserveCapacity(minimumWritableBytes: 4 + packedSize)
        buffer.writeInteger(UInt32(packedSize))
        guard packedSize > 0 else { return }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: packedSize) { bytes in
            let written = pack(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            precondition(written == packedSize, "protobuf-c packed \(written) bytes after announcing \(packedSize)")
            return written
        }
    }

    /// Unpacks a payload, converts the C message to a Swift value and frees it, whether the
    /// conversion succeeds or throws. protobuf-c reads the buffer's bytes in place.
    static func decode<Message, Value>(
        _ payload: ByteBuffer,
        message name: StaticString,
        unpack: (Int, UnsafePointer<UInt8>?) -> UnsafeMutablePointer<Message>?,
        free: (UnsafeMutablePointer<Message>) -> Void,
        convert: (UnsafePointer<Message>) throws -> Value
    ) throws -> Value {
        let unpacked = payload.withUnsafeReadableBytes { bytes in
            unpack(bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard let message = unpacked else {
            throw StashError.invalidArgument(
                "\(name): a payload of \(payload.readableBytes) bytes is not a valid protobuf message of this type")
        }
        defer { free(message) }
        return try convert(message)
    }
}
