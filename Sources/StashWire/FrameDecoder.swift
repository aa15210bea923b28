import NIOCore

/// Splits a byte stream into frame payloads: a u32 big-endian length, then that many bytes.
///
/// The length is checked as soon as its 4 bytes are in, before any of the payload is waited
/// for, so a peer cannot make the receiver buffer more than `maxFrameLength` bytes for one
/// frame. Payloads are slices of the received bytes, not copies.
package struct FrameDecoder: ByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    static let prefixLength = 4

    /// The largest payload accepted, in bytes.
    package let maxFrameLength: Int

    package init(maxFrameLength: Int = WireCodec.defaultMaxFrameLength) {
        self.maxFrameLength = maxFrameLength
    }

    /// Passes on every complete frame's payload; throws `FrameError` as soon as a length
    /// prefix is 0 or above `maxFrameLength`.
    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let payload = try nextPayload(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(payload))
        return .continue
    }

    /// At the end of the stream, bytes that do not make a whole frame throw
    /// `FrameError.truncatedFrame`.
    package mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        try checkNothingLeft(in: buffer)
        return .needMoreData
    }

    /// The payload of the first frame in `buffer`, consumed; nil while the frame is incomplete.
    func nextPayload(from buffer: inout ByteBuffer) throws -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return nil
        }
        guard length > 0 else { throw FrameError.emptyFrame }
        guard length <= maxFrameLength else {
            throw FrameError.frameTooLarge(length: Int(length), limit: maxFrameLength)
        }
        guard buffer.readableBytes >= Self.prefixLength + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: Self.prefixLength)
        return buffer.readSlice(length: Int(length))
    }

    /// At the end of the stream, bytes that did not make a whole frame are an error.
    func checkNothingLeft(in buffer: ByteBuffer) throws {
        guard buffer.readableBytes > 0 else { return }
        let announced = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self)
        throw FrameError.truncatedFrame(
            expected: announced.map { Self.prefixLength + Int($0) } ?? Self.prefixLength,
            received: buffer.readableBytes)
    }
}
