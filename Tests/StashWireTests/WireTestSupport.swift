import Foundation
import NIOCore
import StashCore
import StashWire
import XCTest

enum WireTestSupport {
    /// Splits one encoded frame into its prefix and payload, checking that the prefix is the
    /// payload's length and that nothing follows it.
    static func payload(of frame: ByteBuffer, file: StaticString = #filePath, line: UInt = #line) throws -> ByteBuffer {
        var frame = frame
        let length = try XCTUnwrap(frame.readInteger(endianness: .big, as: UInt32.self), file: file, line: line)
        XCTAssertEqual(Int(length), frame.readableBytes, "length prefix", file: file, line: line)
        return frame
    }

    static func roundTrip(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws -> Request {
        var buffer = ByteBuffer()
        WireCodec.encode(request, into: &buffer)
        return try WireCodec.decodeRequest(payload(of: buffer, file: file, line: line))
    }

    static func roundTrip(_ message: ServerMessage, file: StaticString = #filePath, line: UInt = #line) throws -> ServerMessage {
        var buffer = ByteBuffer()
        WireCodec.encode(message, at: sentAt, into: &buffer)
        return try WireCodec.decodeServerMessage(payload(of: buffer, file: file, line: line))
    }

    static func payloadBytes(_ message: ServerMessage) throws -> [UInt8] {
        var buffer = ByteBuffer()
        WireCodec.encode(message, at: sentAt, into: &buffer)
        let payload = try payload(of: buffer)
        return Array(payload.readableBytesView)
    }

    /// When the tests' server messages are sent: a licence's time left in a record is worked
    /// out from it.
    static let sentAt = date(ms: 1_700_000_500_000)

    /// Dates on the wire are whole milliseconds; fixtures use such dates so they round-trip exactly.
    static func date(ms: Int64) -> Date {
        Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    static func download(id: String = "video-1") -> Download {
        Download(
            id: id, uri: "https://media.example.com/\(id)/master.m3u8", title: "Épisode 1 — 東京 🎬",
            state: .downloading, downloadedBytes: 500, totalBytes: 1000, speed: 100,
            quality: "high", hasSubtitles: true, hasDRM: true, assetPath: "assets/\(id)",
            error: DownloadError(.network, "connection reset", httpStatus: 0),
            stateReason: "resumed by client", createdAt: date(ms: 1_700_000_000_123),
            completedAt: date(ms: 1_700_000_100_456),
            sha256: String(repeating: "ab", count: 32),
            headers: [HTTPHeader(name: "Authorization", value: "Bearer x"), HTTPHeader(name: "X-Empty", value: "")],
            hls: HLSOptions(quality: .high, maxHeight: 1080, subtitles: ["en", "es"], segmentConcurrency: 12))
    }

    /// Every field at its zero value, every optional nil.
    static func bareDownload() -> Download {
        Download(id: "", uri: "", state: .notDownloaded, assetPath: "", createdAt: date(ms: 0))
    }

    /// Throws the error of a request that decoded as `Operation.invalid`, so the checks for
    /// bad values read the same whether they surface as a throw or as an invalid op.
    static func rethrowInvalid(_ request: Request) throws -> Request {
        if case .invalid(let error) = request.op { throw error }
        return request
    }

    static func assertInvalidArgument<T>(
        _ expression: @autoclosure () throws -> T, mentioning parts: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            guard let error = error as? StashError else {
                return XCTFail("expected StashError, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
            for part in parts {
                XCTAssertTrue(error.message.contains(part), "'\(error.message)' should mention '\(part)'", file: file, line: line)
            }
        }
    }
}
