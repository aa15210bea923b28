import NIOCore
import StashCore
import StashWire
import XCTest

final class WireCodecRequestTests: XCTestCase {
    /// One value of every operation, with Unicode, empty and non-default fields.
    static let everyOperation: [StashWire.Operation] = [
        .hello(HelloRequest(protocolVersion: 1, clientName: "player — プレーヤー")),
        .hello(HelloRequest(protocolVersion: 0, clientName: "")),
        .addDownload(AddDownloadRequest(
            id: "lesson-7", uri: "https://example.com/a b/ü.mp4", title: "Leçon 7 🎧",
            sha256: String(repeating: "0f", count: 32),
            headers: [HTTPHeader(name: "Cookie", value: "a=1; b=2"), HTTPHeader(name: "X-Ü", value: "")])),
        .addDownload(AddDownloadRequest(uri: "https://example.com/x")),
        .getDownload(id: "video-1"),
        .getDownload(id: ""),
        .listDownloads(ListDownloadsRequest(states: DownloadState.allCases, pageSize: 1000, pageToken: "opaque-token")),
        .listDownloads(ListDownloadsRequest()),
        .hasDownload(id: "章-1"),
        .pause(id: "a"),
        .resume(id: "b"),
        .cancel(id: "c"),
        .pauseAll,
        .resumeAll,
        .cancelAll,
        .pauseGroup(GroupRequest(group: "one-piece/chapter-12")),
        .resumeGroup(GroupRequest(group: "seder", includeFailed: true)),
        .resumeGroup(GroupRequest(group: "")),
        .cancelGroup(GroupRequest(group: "a.b_c-d")),
        .subscribe(SubscribeRequest(ids: ["a", "", "ß"], minProgressStep: 5, minIntervalMs: 1000, replayFromSeq: UInt64.max)),
        .subscribe(SubscribeRequest()),
        .subscribe(SubscribeRequest(states: [.completed, .failed, .completed])),
        .getStats,
        .getSystemInfo,
        .getConfig,
        .setConfig([ConfigEntry(key: "max-parallel", value: "4"), ConfigEntry(key: "rate-limit", value: "")]),
        .setConfig([]),
        .verify(VerifyRequest(deep: true, repair: true, dryRun: false)),
        .verify(VerifyRequest()),
        .purge,
        .addDownload(AddDownloadRequest(id: "movie", uri: "https://h/master.m3u8", hls: HLSOptions(
            quality: .medium, maxHeight: 720, bandwidth: 2_000_000, subtitles: ["en", "pt-BR"], audio: ["all"], segmentConcurrency: 16))),
        .addDownload(AddDownloadRequest(uri: "https://h/x.m3u8", hls: HLSOptions())),
        .getManifestInfo(uri: "https://h/master.m3u8", headers: [HTTPHeader(name: "Authorization", value: "Bearer ü")]),
        .getManifestInfo(uri: "", headers: []),
        .export(ExportRequest(id: "movie", dir: "/home/ü/Movies/out", decrypt: true)),
        .export(ExportRequest(id: "", dir: "")),
        .addSubtitles(id: "movie", languages: ["en", "pt-BR", "all"]),
        .removeSubtitles(id: "movie", languages: []),
        .getSubtitles(id: "movie"),
        .downloadLicense(id: "movie"),
        .checkLicense(id: "movie"),
        .renewLicense(id: "movie"),
        .releaseLicense(id: "movie"),
        .releaseAllLicenses,
        .getPlaybackKey(id: "movie", keyID: "EBESExQVFhcYGRobHB0eHw"),
        .stop(id: "movie", reason: "metered network"),
        .stop(id: "", reason: ""),
        .forget(id: "movie", moveTo: "/home/ü/Videos"),
        .adopt(AdoptRequest(path: "/home/ü/ep1.mp4", id: "ep1", url: "https://h/ep1.mp4", sha256: String(repeating: "a", count: 64), link: true)),
        .adopt(AdoptRequest(path: "", id: "")),
        .addDownload(AddDownloadRequest(id: "chapter", uri: "", title: "Ch. 1", files: [
            BundleFileSpec(url: "https://h/p/1.jpg", path: "pages/001.jpg", size: 1234, sha256: String(repeating: "0f", count: 32)),
            BundleFileSpec(url: "https://h/p/2.jpg"),
        ])),
        .addDownload(AddDownloadRequest(id: "chapter", uri: "", files: [BundleFileSpec(url: "https://h/p/3.jpg", path: "pages/003.jpg")], append: true)),
        .addDownload(AddDownloadRequest(uri: "https://h/low.mp4", priority: .low)),
        .setDownload(DownloadChanges(id: "a", priority: .high)),
        .setDownload(DownloadChanges(id: "a", priority: .normal)),
        .setDownload(DownloadChanges(id: "")),
        .setDownload(DownloadChanges(id: "a", rateLimit: 0)),
        .setDownload(DownloadChanges(id: "a", rateLimit: .max)),
        .setDownload(DownloadChanges(id: "a", priority: .low, rateLimit: 1)),
        .setDownload(DownloadChanges(id: "a", uri: "https://h/x?sig=1")),
        .move(id: "a", .top),
        .move(id: "a", .bottom),
        .move(id: "a", .before("b")),
        .move(id: "ü", .after("章")),
        .unknown,
    ]

    func testEveryOperationRoundTrips() throws {
        XCTAssertEqual(Set(Self.everyOperation.map(\.name)).count, 38, "every Operation case is covered")
        for (index, op) in Self.everyOperation.enumerated() {
            let request = Request(id: UInt64(index) + 1, op: op)
            XCTAssertEqual(try WireTestSupport.roundTrip(request), request, "\(op.name)")
        }
    }

    func testLargestIdRoundTrips() throws {
        let request = Request(id: .max, op: .getDownload(id: "x"))
        XCTAssertEqual(try WireTestSupport.roundTrip(request), request)
    }

    func testRequestLargerThanOneArenaBlockRoundTrips() throws {
        let headers = (0..<300).map { HTTPHeader(name: "X-Header-\($0)", value: String(repeating: "v", count: $0)) }
        let request = Request(id: 9, op: .addDownload(AddDownloadRequest(
            id: "big", uri: "https://example.com/" + String(repeating: "p", count: 20_000), headers: headers)))
        XCTAssertEqual(try WireTestSupport.roundTrip(request), request)
    }

    /// The bytes follow the schema, not only protobuf-c's reading of its own output.
    func testGetDownloadBytesFollowTheSchema() {
        var buffer = ByteBuffer()
        WireCodec.encode(Request(id: 5, op: .getDownload(id: "a")), into: &buffer)
        XCTAssertEqual(Array(buffer.readableBytesView), [0, 0, 0, 7, 0x08, 0x05, 0x62, 0x03, 0x0A, 0x01, 0x61])
    }

    func testEncodeAppendsFramesAfterExistingBytes() throws {
        var buffer = ByteBuffer(bytes: [0xEE])
        WireCodec.encode(Request(id: 1, op: .pauseAll), into: &buffer)
        WireCodec.encode(Request(id: 2, op: .getDownload(id: "zz")), into: &buffer)
        XCTAssertEqual(buffer.readInteger(as: UInt8.self), 0xEE)
        var decoded: [Request] = []
        while let length = buffer.readInteger(endianness: .big, as: UInt32.self) {
            decoded.append(try WireCodec.decodeRequest(try XCTUnwrap(buffer.readSlice(length: Int(length)))))
        }
        XCTAssertEqual(decoded, [Request(id: 1, op: .pauseAll), Request(id: 2, op: .getDownload(id: "zz"))])
    }

    /// A newer client's op: field 1 (id), then a submessage in a field number this version lacks.
    func testUnknownOpNumberDecodesAsUnknown() throws {
        var bytes = ProtobufBytes()
        bytes.varint(1, 42)
        bytes.message(99) { $0.string(1, "from the future") }
        XCTAssertEqual(try WireCodec.decodeRequest(bytes.buffer), Request(id: 42, op: .unknown))
    }

    func testUnknownFieldsNextToAKnownOpAreIgnored() throws {
        var bytes = ProtobufBytes()
        bytes.varint(1, 3)
        bytes.message(12) {
            $0.string(1, "video-1")
            $0.varint(77, 1)
        }
        bytes.string(98, "ignored")
        XCTAssertEqual(try WireCodec.decodeRequest(bytes.buffer), Request(id: 3, op: .getDownload(id: "video-1")))
    }

    func testUnknownStateKeepsTheRequestIDSoItCanBeAnswered() throws {
        var bytes = ProtobufBytes()
        bytes.varint(1, 77)
        bytes.message(13) { $0.varint(1, 99) }
        let request = try WireCodec.decodeRequest(bytes.buffer)
        XCTAssertEqual(request.id, 77)
        guard case .invalid(let error) = request.op else { return XCTFail("decoded as \(request.op)") }
        XCTAssertEqual(error.code, .invalidArgument)
    }

    func testUnknownStateInListDownloadsThrowsNamingFieldAndValue() {
        var bytes = ProtobufBytes()
        bytes.varint(1, 1)
        bytes.message(13) {
            $0.varint(1, 2)
            $0.varint(1, 99)
        }
        WireTestSupport.assertInvalidArgument(
            try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: ["ListDownloadsRequest.states", "99"])
    }

    /// A state past the last, -1 (ten bytes on the wire), the ends of int32 and int64's largest,
    /// each refused naming the field and the value as protobuf-c kept it (an int32).
    func testUnknownStateInSubscribeThrowsNamingFieldAndValue() {
        let values: [(wire: UInt64, shown: String)] = [
            (42, "42"), (UInt64(bitPattern: -1), "-1"), (UInt64(Int32.max), "\(Int32.max)"),
            (UInt64(bitPattern: Int64(Int32.min)), "\(Int32.min)"), (UInt64(bitPattern: Int64.max), "-1"),
        ]
        for (wire, shown) in values {
            var bytes = ProtobufBytes()
            bytes.varint(1, 1)
            bytes.message(21) { $0.varint(5, wire) }
            WireTestSupport.assertInvalidArgument(
                try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: ["SubscribeRequest.states", shown])
        }
    }

    func testUnknownStateInPackedListDownloadsThrows() {
        var bytes = ProtobufBytes()
        bytes.varint(1, 1)
        bytes.message(13) { $0.bytes(1, [3, 13]) }
        WireTestSupport.assertInvalidArgument(
            try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: ["ListDownloadsRequest.states", "13"])
    }

    /// Moves a daemon cannot read are refused naming the field: no place, an unknown one, an
    /// other for TOP, none for BEFORE; and an unknown priority.
    func testHostileMovesAndPrioritiesThrowNamingTheField() {
        let cases: [(op: Int, fields: (inout ProtobufBytes) -> Void, mentioning: [String])] = [
            (46, { $0.string(1, "a") }, ["MoveRequest.place", "0"]),
            (46, { $0.string(1, "a"); $0.varint(2, 9) }, ["MoveRequest.place", "9"]),
            (46, { $0.string(1, "a"); $0.varint(2, 1); $0.string(3, "b") }, ["MoveRequest.other", "'b'"]),
            (46, { $0.string(1, "a"); $0.varint(2, 3) }, ["MoveRequest.other", "empty"]),
            (45, { $0.string(1, "a"); $0.varint(2, 7) }, ["SetDownloadRequest.priority", "7"]),
            (45, { $0.string(1, "a"); $0.varint(3, UInt64(Int64.max) + 1) }, ["SetDownloadRequest.rate_limit", "9223372036854775808"]),
            (11, { $0.string(2, "https://h/x"); $0.varint(14, UInt64(bitPattern: -1)) }, ["AddDownloadRequest.priority", "-1"]),
        ]
        for (op, fields, mentioning) in cases {
            var bytes = ProtobufBytes()
            bytes.varint(1, 1)
            bytes.message(op) { fields(&$0) }
            WireTestSupport.assertInvalidArgument(try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: mentioning)
        }
    }

    func testNegativeStateNumberIsReportedAsNegative() {
        var bytes = ProtobufBytes()
        bytes.varint(1, 1)
        bytes.message(13) { $0.varint(1, UInt64(bitPattern: -1)) }
        WireTestSupport.assertInvalidArgument(
            try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: ["ListDownloadsRequest.states", "-1"])
    }

    func testStringThatIsNotUTF8Throws() {
        var bytes = ProtobufBytes()
        bytes.varint(1, 1)
        bytes.message(12) { $0.bytes(1, [0x61, 0xFF, 0xFE]) }
        WireTestSupport.assertInvalidArgument(try WireTestSupport.rethrowInvalid(WireCodec.decodeRequest(bytes.buffer)), mentioning: ["Request.get_download.id", "not UTF-8 at byte 1"])
    }

    func testTruncatedPayloadThrows() {
        var buffer = ByteBuffer()
        WireCodec.encode(Request(id: 5, op: .getDownload(id: "video-1")), into: &buffer)
        let payload = buffer.getSlice(at: 4, length: buffer.readableBytes - 6)!
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeRequest(payload), mentioning: ["stash.v1.Request"])
    }
}
