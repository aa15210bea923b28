import NIOCore
import NIOEmbedded
import StashCore
import StashWire
import XCTest

final class FrameDecoderChannelTests: XCTestCase {
    private func makeChannel(maxFrameLength: Int = WireCodec.defaultMaxFrameLength) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(maxFrameLength: maxFrameLength)))
        return channel
    }

    private func frames(_ requests: [Request]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for request in requests { WireCodec.encode(request, into: &buffer) }
        return buffer
    }

    private func readRequests(_ channel: EmbeddedChannel) throws -> [Request] {
        var requests: [Request] = []
        while let payload = try channel.readInbound(as: ByteBuffer.self) {
            requests.append(try WireCodec.decodeRequest(payload))
        }
        return requests
    }

    private let requests = [
        Request(id: 1, op: .hello(HelloRequest(clientName: "test"))),
        Request(id: 2, op: .getDownload(id: "video-1")),
        Request(id: 3, op: .listDownloads(ListDownloadsRequest(states: [.queued, .failed]))),
    ]

    func testFramesSplitByteByByte() throws {
        let channel = try makeChannel()
        let bytes = frames(requests)
        var decoded: [Request] = []
        for byte in bytes.readableBytesView {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
            decoded += try readRequests(channel)
        }
        XCTAssertEqual(decoded, requests)
        XCTAssertTrue(try channel.finish().isClean)
    }

    func testSeveralFramesInOneRead() throws {
        let channel = try makeChannel()
        try channel.writeInbound(frames(requests))
        XCTAssertEqual(try readRequests(channel), requests)
        XCTAssertTrue(try channel.finish().isClean)
    }

    func testZeroLengthFrameIsAnError() throws {
        let channel = try makeChannel()
        XCTAssertThrowsError(try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 0]))) { error in
            XCTAssertEqual(error as? FrameError, .emptyFrame)
        }
        _ = try? channel.finish()
    }

    func testOversizedFrameFailsBeforeItsPayloadArrives() throws {
        let channel = try makeChannel(maxFrameLength: 1024)
        try channel.writeInbound(frames([requests[1]]))
        XCTAssertEqual(try readRequests(channel), [requests[1]])
        // Only the prefix is sent: the error must not wait for the 1025 bytes it announces.
        XCTAssertThrowsError(try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0x04, 0x01]))) { error in
            XCTAssertEqual(error as? FrameError, .frameTooLarge(length: 1025, limit: 1024))
        }
        XCTAssertNil(try channel.readInbound(as: ByteBuffer.self))
        _ = try? channel.finish()
    }

    func testPartialFrameAtEndOfStreamIsTruncated() throws {
        let channel = try makeChannel()
        var bytes = frames([requests[0], requests[1]])
        bytes.moveWriterIndex(to: bytes.writerIndex - 3)
        try channel.writeInbound(bytes)
        XCTAssertEqual(try readRequests(channel), [requests[0]])
        let secondFrameLength = frames([requests[1]]).readableBytes
        XCTAssertThrowsError(try channel.finish()) { error in
            XCTAssertEqual(error as? FrameError, .truncatedFrame(expected: secondFrameLength, received: secondFrameLength - 3))
        }
    }
}
