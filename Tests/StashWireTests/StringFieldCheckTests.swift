import NIOCore
import StashCore
@testable import StashWire
import StashTestSupport
import XCTest

/// Every string from the wire is UTF-8 without NUL, or the message is refused naming the field
/// by its path, the value and the byte: protobuf-c would hand the string over cut at its NUL
/// (id `nul1\0evil` read as `nul1`) and does not check UTF-8 at all.
final class StringFieldCheckTests: XCTestCase {
    private func request(id: UInt64 = 9, _ build: (inout ProtobufBytes) -> Void) -> ByteBuffer {
        var bytes = ProtobufBytes()
        bytes.varint(1, id)
        build(&bytes)
        return bytes.buffer
    }

    private func assertRefused(
        _ payload: ByteBuffer, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let decoded = try WireCodec.decodeRequest(payload)
        XCTAssertEqual(decoded.id, 9, "answered under its own id", file: file, line: line)
        guard case .invalid(let error) = decoded.op else {
            return XCTFail("expected the request refused, got \(decoded.op)", file: file, line: line)
        }
        XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
        XCTAssertEqual(error.message, expected + "; a string must be UTF-8 without NUL", file: file, line: line)
    }

    func testANULInsideARequestStringIsRefusedNamingTheField() throws {
        let nul = Array("nul1\0other".utf8)
        try assertRefused(request { $0.message(17) { $0.bytes(1, nul) } },
                          #"Request.cancel.id: "nul1\0other" (10 bytes) holds a NUL at byte 4"#)
        try assertRefused(request { $0.message(11) { $0.string(1, "ok"); $0.bytes(3, Array("A\0".utf8)) } },
                          #"Request.add_download.title: "A\0" (2 bytes) holds a NUL at byte 1"#)
        try assertRefused(request { $0.message(11) { $0.bytes(2, Array("https://x/\0".utf8)) } },
                          #"Request.add_download.uri: "https://x/\0" (11 bytes) holds a NUL at byte 10"#)
        try assertRefused(request { $0.message(11) { $0.bytes(11, Array("one\0piece".utf8)) } },
                          #"Request.add_download.group: "one\0piece" (9 bytes) holds a NUL at byte 3"#)
        try assertRefused(request { $0.message(42) { $0.bytes(1, Array("one\0".utf8)) } },
                          #"Request.pause_group.group: "one\0" (4 bytes) holds a NUL at byte 3"#)
        try assertRefused(request { $0.message(13) { $0.bytes(4, [0]) } },
                          #"Request.list_downloads.group: "\0" (1 bytes) holds a NUL at byte 0"#)
    }

    func testTheIndexOfARepeatedFieldIsNamed() throws {
        let files = request {
            $0.message(11) {
                for path in ["a", "b"] { $0.message(6) { $0.string(1, "https://x/\(path)"); $0.string(2, path) } }
                $0.varint(9, 1)  // another field between the elements
                $0.message(6) { $0.string(1, "https://x/c"); $0.bytes(2, Array("ok\0/../../x".utf8)) }
            }
        }
        try assertRefused(files, #"Request.add_download.files[2].path: "ok\0/../../x" (11 bytes) holds a NUL at byte 2"#)
        let tracks = request {
            $0.message(11) {
                $0.message(13) { $0.string(1, "https://x/en.vtt"); $0.string(2, "en") }
                $0.message(13) { $0.string(1, "https://x/es.vtt"); $0.bytes(2, Array("es\0".utf8)) }
            }
        }
        try assertRefused(tracks, #"Request.add_download.text_tracks[1].lang: "es\0" (3 bytes) holds a NUL at byte 2"#)
        let type = request {
            $0.message(30) {
                $0.string(1, "video")
                $0.message(3) { $0.string(1, "https://x/es.srt"); $0.string(2, "es"); $0.bytes(4, Array("srt\0vtt".utf8)) }
            }
        }
        try assertRefused(type, #"Request.add_subtitles.text_tracks[0].type: "srt\0vtt" (7 bytes) holds a NUL at byte 3"#)
        let languages = request { $0.message(30) { $0.string(1, "video"); $0.string(2, "en"); $0.bytes(2, [0x66, 0xFF]) } }
        try assertRefused(languages, #"Request.add_subtitles.languages[1]: "f\xff" (2 bytes) is not UTF-8 at byte 1"#)
    }

    func testBytesThatAreNotUTF8AreRefusedAtTheirOffset() throws {
        let cases: [([UInt8], String)] = [
            ([0x61, 0xFF], #""a\xff" (2 bytes) is not UTF-8 at byte 1"#),
            ([0x80], #""\x80" (1 bytes) is not UTF-8 at byte 0"#),  // a continuation byte alone
            ([0xC0, 0xAF], #""\xc0\xaf" (2 bytes) is not UTF-8 at byte 0"#),  // overlong '/'
            ([0xE0, 0x80, 0xAF], #""\xe0\x80\xaf" (3 bytes) is not UTF-8 at byte 0"#),  // overlong
            ([0x61, 0xED, 0xA0, 0x80], #""a\xed\xa0\x80" (4 bytes) is not UTF-8 at byte 1"#),  // surrogate U+D800
            ([0xF4, 0x90, 0x80, 0x80], #""\xf4\x90\x80\x80" (4 bytes) is not UTF-8 at byte 0"#),  // above U+10FFFF
            ([0xC3], #""\xc3" (1 bytes) is not UTF-8 at byte 0"#),  // cut short
            ([0x61, 0xFF, 0x00], #""a\xff\0" (3 bytes) is not UTF-8 at byte 1"#),  // the first problem wins
        ]
        for (bytes, reason) in cases {
            try assertRefused(request { $0.message(11) { $0.bytes(1, bytes) } }, "Request.add_download.id: " + reason)
        }
        // Every length of sequence, at its extremes, is read.
        let valid = "\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF} été 東京 🎬"
        let accepted = try WireCodec.decodeRequest(request { $0.message(11) { $0.string(3, valid) } })
        guard case .addDownload(let add) = accepted.op else { return XCTFail("expected an add, got \(accepted.op)") }
        XCTAssertEqual(add.title, valid)
    }

    func testALongValueIsShownCut() throws {
        let long = Array(repeating: UInt8(ascii: "x"), count: 100) + [0]
        try assertRefused(request { $0.message(17) { $0.bytes(1, long) } },
                          "Request.cancel.id: \"\(String(repeating: "x", count: 64))...\" (101 bytes) holds a NUL at byte 100")
    }

    func testTheCheckAgreesWithSwiftsOwnUTF8OnRandomBytes() {
        var random = SeededRandom.seeded()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...6, using: &random)
            // Mostly bytes around the edges of the encoding, where a validator goes wrong.
            let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                  0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
            let bytes = (0..<count).map { _ in edges.randomElement(using: &random)! }
            let expected = String(validating: bytes, as: UTF8.self) != nil && !bytes.contains(0)
            let problem = bytes.withUnsafeBytes { StringFieldCheck.problem(in: $0) }
            XCTAssertEqual(problem == nil, expected, "\(bytes): \(problem ?? "accepted")")
        }
    }

    func testAStringFromTheDaemonIsCheckedToo() {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 3)
            $0.message(11) { $0.message(1) { $0.string(1, "x"); $0.bytes(3, Array("nul1\0evil".utf8)) } }
        }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(bytes.buffer),
            mentioning: [#"ServerMessage.response.download.download.title: "nul1\0evil" (9 bytes) holds a NUL at byte 4"#])
        var event = ProtobufBytes()
        event.message(2) { $0.varint(1, 5); $0.message(12) { $0.bytes(1, [0xC3, 0x28]) } }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(event.buffer),
            mentioning: [#"ServerMessage.event.removed.id: "\xc3(" (2 bytes) is not UTF-8 at byte 0"#])
    }

    func testUnknownFieldsAndBytesFieldsAreNotStrings() throws {
        // app_data (10) is bytes: a NUL is data there. Field 99 is not in the schema.
        let payload = request {
            $0.message(11) { $0.string(2, "https://x/a"); $0.bytes(10, [0, 0xFF]); $0.bytes(99, [0, 0xFF]) }
        }
        guard case .addDownload(let add) = try WireCodec.decodeRequest(payload).op else { return XCTFail("expected an add") }
        XCTAssertEqual(add.appData, [0, 0xFF])
    }

    // MARK: - What the Swift client sends

    func testTheClientRefusesToSendAStringWithANULNamingTheField() throws {
        func refusal(_ op: StashWire.Operation) -> String? {
            var buffer = ByteBuffer()
            do {
                try WireCodec.encodeRefusingNUL(Request(id: 1, op: op), into: &buffer)
                return nil
            } catch let error as StashError {
                XCTAssertEqual(error.code, .invalidArgument)
                XCTAssertEqual(buffer.readableBytes, 0, "nothing written")
                return error.message
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(refusal(.cancel(id: "nul1\0other")),
                       #"Request.cancel.id: "nul1\0other" (10 bytes) holds a NUL at byte 4; a string must be UTF-8 without NUL"#)
        let files = [BundleFileSpec(url: "https://x/a", path: "fine.bin"), BundleFileSpec(url: "https://x/b", path: "ok\0/../../x")]
        XCTAssertEqual(refusal(.addDownload(AddDownloadRequest(id: "b", uri: "", files: files))),
                       #"Request.add_download.files[1].path: "ok\0/../../x" (11 bytes) holds a NUL at byte 2; a string must be UTF-8 without NUL"#)
        XCTAssertEqual(refusal(.pauseGroup(GroupRequest(group: "a\0"))),
                       #"Request.pause_group.group: "a\0" (2 bytes) holds a NUL at byte 1; a string must be UTF-8 without NUL"#)
        XCTAssertNil(refusal(.cancel(id: "fine")))
        XCTAssertNil(refusal(.addDownload(AddDownloadRequest(id: "été", uri: "https://x/a", title: "東京 🎬"))))
    }
}
