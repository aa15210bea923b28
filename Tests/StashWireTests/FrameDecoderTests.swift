import NIOCore
@testable import StashWire
import XCTest

/// The framing rules on a plain buffer; FrameDecoderChannelTests runs the same decoder in a
/// channel pipeline.
final class FrameDecoderTests: XCTestCase {
    private func frame(_ payload: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        return Array(buffer.readableBytesView)
    }

    func testSeveralFramesInOneBuffer() throws {
        let decoder = FrameDecoder()
        var buffer = ByteBuffer(bytes: frame([1]) + frame([2, 3]) + frame(Array(repeating: 9, count: 300)) + [0, 0])
        XCTAssertEqual(try decoder.nextPayload(from: &buffer), ByteBuffer(bytes: [1]))
        XCTAssertEqual(try decoder.nextPayload(from: &buffer), ByteBuffer(bytes: [2, 3]))
        XCTAssertEqual(try decoder.nextPayload(from: &buffer), ByteBuffer(bytes: Array(repeating: 9, count: 300)))
        XCTAssertNil(try decoder.nextPayload(from: &buffer), "2 bytes of the next prefix are not a frame yet")
        XCTAssertEqual(buffer.readableBytes, 2, "partial bytes stay for the next read")
    }

    func testIncompletePayloadWaitsWithoutConsuming() throws {
        let decoder = FrameDecoder()
        var buffer = ByteBuffer(bytes: Array(frame([1, 2, 3]).dropLast()))
        XCTAssertNil(try decoder.nextPayload(from: &buffer))
        XCTAssertEqual(buffer.readableBytes, 6)
        buffer.writeInteger(UInt8(3))
        XCTAssertEqual(try decoder.nextPayload(from: &buffer), ByteBuffer(bytes: [1, 2, 3]))
    }

    func testZeroLengthThrows() {
        var buffer = ByteBuffer(bytes: [0, 0, 0, 0, 1])
        XCTAssertThrowsError(try FrameDecoder().nextPayload(from: &buffer)) { error in
            XCTAssertEqual(error as? FrameError, .emptyFrame)
        }
    }

    func testOversizedLengthThrowsOnThePrefixAlone() {
        var buffer = ByteBuffer(bytes: [0, 0, 0x10, 0x01])
        XCTAssertThrowsError(try FrameDecoder(maxFrameLength: 4096).nextPayload(from: &buffer)) { error in
            XCTAssertEqual(error as? FrameError, .frameTooLarge(length: 4097, limit: 4096))
        }
    }

    func testLimitItselfIsAccepted() throws {
        var buffer = ByteBuffer(bytes: frame(Array(repeating: 7, count: 16)))
        XCTAssertEqual(try FrameDecoder(maxFrameLength: 16).nextPayload(from: &buffer)?.readableBytes, 16)
    }

    func testDefaultLimitIsFourMebibytes() {
        var buffer = ByteBuffer(bytes: [0, 0x40, 0, 1])
        XCTAssertThrowsError(try FrameDecoder().nextPayload(from: &buffer)) { error in
            XCTAssertEqual(error as? FrameError, .frameTooLarge(length: 4 * 1024 * 1024 + 1, limit: 4 * 1024 * 1024))
        }
    }

    func testLeftoverBytesAtTheEndAreATruncatedFrame() {
        let decoder = FrameDecoder()
        XCTAssertNoThrow(try decoder.checkNothingLeft(in: ByteBuffer()))
        XCTAssertThrowsError(try decoder.checkNothingLeft(in: ByteBuffer(bytes: [0, 0, 0, 10, 1, 2]))) { error in
            XCTAssertEqual(error as? FrameError, .truncatedFrame(expected: 14, received: 6))
        }
        XCTAssertThrowsError(try decoder.checkNothingLeft(in: ByteBuffer(bytes: [0, 0]))) { error in
            XCTAssertEqual(error as? FrameError, .truncatedFrame(expected: 4, received: 2))
        }
    }

    func testErrorsNameLengthAndLimit() {
        let tooLarge = FrameError.frameTooLarge(length: 5_000_000, limit: 4_194_304)
        XCTAssertTrue(tooLarge.description.contains("5000000") && tooLarge.description.contains("4194304"), tooLarge.description)
        let truncated = FrameError.truncatedFrame(expected: 14, received: 6)
        XCTAssertTrue(truncated.description.contains("14") && truncated.description.contains("6"), truncated.description)
    }
}
