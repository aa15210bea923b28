import NIOCore
import StashCore
import StashWire
import StashTestSupport
import XCTest

/// Bytes from a broken or hostile peer must throw StashError(.invalidArgument) or decode to
/// something; never crash, never throw anything else.
final class WireCodecGarbageTests: XCTestCase {
    private func decodeBoth(_ bytes: [UInt8], rejected: inout Int) {
        for decode in [{ _ = try WireCodec.decodeRequest($0) }, { _ = try WireCodec.decodeServerMessage($0) }] as [(ByteBuffer) throws -> Void] {
            do {
                try decode(ByteBuffer(bytes: bytes))
            } catch let error as StashError {
                XCTAssertEqual(error.code, .invalidArgument, "\(bytes)")
                rejected += 1
            } catch {
                XCTFail("unexpected error \(error) for \(bytes)")
            }
        }
    }

    func testRandomBuffersThrowInsteadOfCrashing() {
        var random = SeededRandom.seeded()
        var rejected = 0
        let rounds = 4000
        for _ in 0..<rounds {
            let count = Int.random(in: 1...96, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            decodeBoth(bytes, rejected: &rejected)
        }
        // Some random bytes happen to be valid protobuf; most are not.
        XCTAssertGreaterThan(rejected, rounds)
    }

    /// Valid frames with a few bytes changed reach deeper into the message parsers.
    func testMutatedValidMessagesThrowInsteadOfCrashing() throws {
        let messages: [ServerMessage] = [
            .response(Response(id: 3, result: .success(.download(WireTestSupport.download(), created: true)))),
            .response(Response(id: 4, result: .success(.list(DownloadPage(
                downloads: [WireTestSupport.download(id: "a"), WireTestSupport.download(id: "b")], nextPageToken: "t", total: 2))))),
            .event(DownloadEvent(seq: 9, time: WireTestSupport.date(ms: 5), kind: .stateChanged(WireTestSupport.download(), previous: .paused))),
        ]
        var random = SeededRandom.seeded()
        var rejected = 0
        for message in messages {
            let original = try WireTestSupport.payloadBytes(message)
            for _ in 0..<1000 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                if Bool.random(using: &random) {
                    bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
                }
                decodeBoth(bytes, rejected: &rejected)
            }
        }
        XCTAssertGreaterThan(rejected, 0)
    }
}
