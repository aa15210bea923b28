import Foundation
import NIOCore
import StashCore
import StashWire
import XCTest

final class WireCodecServerMessageTests: XCTestCase {
    private func assertRoundTrips(_ message: ServerMessage, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try WireTestSupport.roundTrip(message, file: file, line: line), message, file: file, line: line)
    }

    private func success(_ result: ResponseResult, id: UInt64 = 7) -> ServerMessage {
        .response(Response(id: id, result: .success(result)))
    }

    func testEveryResponseResultRoundTrips() {
        var config = DaemonConfig()
        config.maxParallel = 64
        config.retryMaxAttempts = 1
        config.retryBaseDelayMs = 10
        config.retryMaxDelayMs = 3_600_000
        config.rateLimit = 1 << 40
        config.lowSpeedLimit = 1 << 30
        config.lowSpeedTime = 3600
        let results: [ResponseResult] = [
            .empty,
            .hello(HelloResult(features: ["events", "replay", "ü"])),
            .hello(HelloResult(protocolVersion: 0, daemonVersion: "", features: [])),
            .download(WireTestSupport.download(), created: true),
            .download(WireTestSupport.bareDownload(), created: false),
            .list(DownloadPage(
                downloads: [WireTestSupport.download(id: "a"), WireTestSupport.bareDownload(), WireTestSupport.download(id: "c")],
                nextPageToken: "next", total: 2500)),
            .list(DownloadPage(downloads: [], nextPageToken: "", total: 0)),
            .has(exists: true, state: .completed),
            .has(exists: false, state: .notDownloaded),
            .count(affected: 0),
            .count(affected: 123_456),
            .stats(DownloadStats(
                speed: 1_000_000, counts: [.queued: 3, .downloading: 2, .restarting: 1, .notDownloaded: 4],
                activeTransfers: 2, downloadedBytes: Int64.max)),
            .stats(DownloadStats(speed: 0, counts: [:], activeTransfers: 0, downloadedBytes: 0)),
            .systemInfo(SystemInfo(
                dataDir: "/home/ünïcode/.local/share/stash", diskTotal: 1 << 40, diskFree: 1 << 39, bytesHeld: 0,
                daemonVersion: "0.1.0", socketPath: "/run/user/1000/stash/stashd.sock", downloadCount: 12)),
            .systemInfo(SystemInfo(
                dataDir: "/d", diskTotal: 10, diskFree: 5, bytesHeld: 7, daemonVersion: "0.2.0", socketPath: "/s", downloadCount: 2,
                bytesByState: [.completed: 5, .paused: 2], assetCount: 2,
                lastVerify: VerifyReport(
                    findings: [VerifyFinding(kind: .missingFile, id: "a", path: "/d/assets/a/x", detail: "file missing on disk")],
                    downloadsChecked: 2, filesChecked: 51, finishedAt: WireTestSupport.date(ms: 1_700_000_000_000), durationMs: 3))),
            .verify(VerifyReport(
                findings: VerifyFinding.Kind.allCases.map { VerifyFinding(kind: $0, id: "i", path: "/p/\($0.name)", detail: "d", repaired: $0.rawValue % 2 == 0) },
                downloadsChecked: 100_000, filesChecked: 5_000_000, finishedAt: WireTestSupport.date(ms: 1), durationMs: 1500,
                deep: true, repaired: true, requeued: 3, filesDeleted: 4, bytesFreed: Int64(1) << 40, digestsChecked: 1234)),
            .verify(VerifyReport()),
            .purge(PurgeResult(filesDeleted: 2, bytesFreed: 1024, paths: ["/d/assets/ghost", "/d/assets/ü"])),
            .purge(PurgeResult()),
            .config(config),
            .config(DaemonConfig()),
            .manifestInfo(ManifestInfo(
                variants: [
                    ManifestInfo.VariantInfo(
                        uri: "https://h/v0.m3u8", bandwidth: 400_000, averageBandwidth: 300_000, width: 256, height: 144,
                        codecs: ["avc1.42c01e", "mp4a.40.2"], frameRate: 29.97, encryption: ["NONE", "AES-128"],
                        estimatedBytes: 1 << 33, sizeIsExact: true, duration: 600.5),
                    ManifestInfo.VariantInfo(uri: "https://h/v1.m3u8", bandwidth: 1),
                    // No BANDWIDTH: 0 on the wire, unknown again when read.
                    ManifestInfo.VariantInfo(uri: "https://h/v2.m3u8", bandwidth: nil),
                ],
                audio: [ManifestInfo.RenditionInfo(groupID: "a", language: "fr", name: "Français", isDefault: true, forced: false, uri: "https://h/a.m3u8")],
                subtitles: [ManifestInfo.RenditionInfo(groupID: "s", language: "", name: "CC", isDefault: false, forced: true)],
                duration: 600.5,
                warnings: ["line 3: EXT-X-STREAM-INF has no BANDWIDTH; its bandwidth is unknown", "https://h/v0.m3u8: ü"])),
            .manifestInfo(ManifestInfo()),
            .export(ExportResult(dir: "/out/ü", files: 302, bytes: 1 << 35, decrypted: true)),
            .export(ExportResult(dir: "", files: 0, bytes: 0, decrypted: false)),
            .subtitles([ManifestInfo.RenditionInfo(groupID: "subs", language: "es", name: "Español", isDefault: true, forced: false, uri: "subtitles/es/index.m3u8")]),
            .subtitles([]),
        ]
        for result in results {
            assertRoundTrips(success(result))
        }
    }

    func testEveryErrorCodeRoundTrips() {
        for code in StashError.Code.allCases where code != .ok {
            assertRoundTrips(.response(Response(id: 11, result: .failure(StashError(code, "\(code.name): naïve ‘message’")))))
        }
        assertRoundTrips(.response(Response(id: 0, result: .failure(StashError(.resourceExhausted, "")))))
    }

    /// A failure must never read as success on the other side, even one built with code OK.
    func testFailureWithCodeOKIsSentAsInternal() throws {
        let decoded = try WireTestSupport.roundTrip(.response(Response(id: 1, result: .failure(StashError(.ok, "oops")))))
        XCTAssertEqual(decoded, .response(Response(id: 1, result: .failure(StashError(.internal, "oops")))))
    }

    func testUnknownStatusCodeDecodesAsInternal() throws {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 4)
            $0.message(2) {
                $0.varint(1, 42)
                $0.string(2, "new failure")
            }
        }
        guard case .response(let response) = try WireCodec.decodeServerMessage(bytes.buffer),
              case .failure(let error) = response.result else {
            return XCTFail("expected a failed response")
        }
        XCTAssertEqual(response.id, 4)
        XCTAssertEqual(error.code, .internal)
        XCTAssertTrue(error.message.contains("42") && error.message.contains("new failure"), error.message)
    }

    func testErrorStatusWinsOverAResult() throws {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 5)
            $0.message(2) {
                $0.varint(1, 2)
                $0.string(2, "no download with id 'x'")
            }
            $0.message(14) { $0.varint(1, 1) }
        }
        XCTAssertEqual(
            try WireCodec.decodeServerMessage(bytes.buffer),
            .response(Response(id: 5, result: .failure(StashError(.notFound, "no download with id 'x'")))))
    }

    func testOKResponseWithoutResultOrStatusIsEmpty() throws {
        var bytes = ProtobufBytes()
        bytes.message(1) { $0.varint(1, 8) }
        XCTAssertEqual(try WireCodec.decodeServerMessage(bytes.buffer), success(.empty, id: 8))
    }

    func testSuccessAlwaysCarriesAnOKStatus() throws {
        let response = try ProtobufFields(WireTestSupport.payloadBytes(success(.empty))).message(1)
        XCTAssertEqual(try response.message(2).fields.count, 0, "status is present and all zero (OK)")
    }

    func testEachEventKindRoundTrips() {
        let events: [DownloadEvent] = [
            DownloadEvent(seq: 1, time: WireTestSupport.date(ms: 1_700_000_000_001),
                          kind: .stateChanged(WireTestSupport.download(), previous: .queued)),
            DownloadEvent(seq: 2, time: WireTestSupport.date(ms: 1_700_000_000_002),
                          kind: .stateChanged(WireTestSupport.bareDownload(), previous: .restarting)),
            DownloadEvent(seq: 3, time: WireTestSupport.date(ms: 1_700_000_000_003), kind: .progress(ProgressUpdate(
                id: "video-1", downloadedBytes: 512, totalBytes: 1024, progressPercent: 50, speed: 64, remainingTime: 8))),
            DownloadEvent(seq: 4, time: WireTestSupport.date(ms: 0), kind: .progress(ProgressUpdate(
                id: "视频", downloadedBytes: 0, totalBytes: nil, progressPercent: 0, speed: 0, remainingTime: nil))),
            DownloadEvent(seq: 5, time: WireTestSupport.date(ms: 1_700_000_000_005), kind: .progress(ProgressUpdate(
                id: "empty-file", downloadedBytes: 0, totalBytes: 0, progressPercent: 0, speed: 0, remainingTime: 0))),
            DownloadEvent(seq: .max, time: WireTestSupport.date(ms: 1_700_000_000_006), kind: .removed(id: "gone")),
            DownloadEvent(seq: 0, time: WireTestSupport.date(ms: 1_700_000_000_007), kind: .removed(id: "")),
        ]
        for event in events {
            assertRoundTrips(.event(event))
        }
    }

    func testOptionalDownloadFieldsSetAndNil() {
        var download = WireTestSupport.download()
        download.totalBytes = nil
        download.completedAt = nil
        download.error = nil
        assertRoundTrips(success(.download(download, created: true)))
        download.totalBytes = 0
        download.downloadedBytes = 0
        download.state = .completed
        download.completedAt = WireTestSupport.date(ms: 1)
        download.error = DownloadError(.http, "HTTP 404", httpStatus: 404)
        assertRoundTrips(success(.download(download, created: true)))
    }

    func testBundleFilesRoundTripWithoutTheirResumeValidators() throws {
        var download = WireTestSupport.download()
        download.uri = ""
        download.isBundle = true
        download.files = [
            DownloadFile(url: "https://h/p/001.jpg", path: "p/001.jpg", size: 1000, sha256: String(repeating: "cd", count: 32),
                         etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", downloadedBytes: 1000, done: true),
            DownloadFile(url: "https://h/p/002.jpg", path: "p/002.jpg", downloadedBytes: 7),
        ]
        download.filesDone = 1
        download.filesTotal = 2
        guard case .response(let response) = try WireTestSupport.roundTrip(success(.download(download, created: true))),
              case .success(.download(let decoded, created: true)) = response.result else {
            return XCTFail("expected a download result")
        }
        XCTAssertNil(decoded.files[0].etag)
        XCTAssertNil(decoded.files[0].lastModified)
        download.files[0].etag = nil
        download.files[0].lastModified = nil
        XCTAssertEqual(decoded, download)
    }

    func testASingleFileRecordCarriesCountsButNoFileList() throws {
        var download = WireTestSupport.download()
        download.files = [DownloadFile(url: download.uri, path: "master.m3u8", etag: "\"x\"")]
        download.filesTotal = 1
        guard case .response(let response) = try WireTestSupport.roundTrip(success(.download(download, created: true))),
              case .success(.download(let decoded, created: true)) = response.result else {
            return XCTFail("expected a download result")
        }
        XCTAssertEqual(decoded.files, [])
        XCTAssertEqual(decoded.filesTotal, 1)
        XCTAssertFalse(decoded.isBundle)
    }

    /// progress, remaining_time and the -1 / 0 sentinels as the schema spells them.
    func testDownloadRecordFieldsOnTheWire() throws {
        var download = WireTestSupport.download()
        download.downloadedBytes = 250
        download.totalBytes = 1000
        download.speed = 100
        var fields = try downloadFields(download)
        XCTAssertEqual(fields.varint(4), UInt64(DownloadState.downloading.rawValue))
        XCTAssertEqual(fields.varint(5), 25, "progress is progressPercent")
        XCTAssertEqual(fields.varint(7), 1000)
        XCTAssertEqual(fields.varint(9), 8, "remaining_time is ceil(750 / 100)")
        XCTAssertEqual(fields.varint(15), 1_700_000_000_123, "created_at in unix milliseconds")
        XCTAssertEqual(fields.varint(16), 1_700_000_100_456)
        XCTAssertEqual(fields.string(13), "assets/video-1", "asset_path passed through as given")

        download.totalBytes = nil
        download.completedAt = nil
        download.error = nil
        fields = try downloadFields(download)
        XCTAssertEqual(fields.varint(7).map { Int64(bitPattern: $0) }, -1, "unknown total is -1")
        XCTAssertEqual(fields.varint(9).map { Int64(bitPattern: $0) }, -1, "unknown remaining time is -1")
        XCTAssertNil(fields.varint(16), "completed_at 0 when not completed")
        XCTAssertThrowsError(try fields.message(14), "error unset")
    }

    private func downloadFields(_ download: Download) throws -> ProtobufFields {
        let bytes = try WireTestSupport.payloadBytes(success(.download(download, created: false)))
        return try ProtobufFields(bytes).message(1).message(11).message(1)
    }

    func testStatsCountsAreStateCountEntriesInStateOrder() throws {
        let stats = DownloadStats(speed: 0, counts: [.failed: 1, .queued: 7], activeTransfers: 0, downloadedBytes: 0)
        let result = try ProtobufFields(WireTestSupport.payloadBytes(success(.stats(stats)))).message(1).message(15)
        let counts = try result.fields.filter { $0.number == 2 }.map { field -> [UInt64?] in
            guard case .bytes(let bytes) = field.value else { throw ProtobufFields.Malformed() }
            let entry = try ProtobufFields(bytes)
            return [entry.varint(1), entry.varint(2)]
        }
        XCTAssertEqual(counts, [[2, 7], [6, 1]])
    }

    func testUnknownStateInAnEventThrowsNamingTheField() {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.varint(1, 1)
            $0.message(10) {
                $0.message(1) {
                    $0.string(1, "video-1")
                    $0.varint(4, 99)
                }
            }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["Download.state", "99"])
    }

    func testUnknownPreviousStateThrows() {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.message(10) {
                $0.message(1) { $0.string(1, "video-1") }
                $0.varint(2, 20)
            }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["StateChanged.previous", "20"])
    }

    func testUnknownStateInHasResultThrows() {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.varint(1, 1)
            $0.message(13) { $0.varint(2, 13) }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["HasDownloadResult.state", "13"])
    }

    func testUnknownErrorKindThrows() {
        var bytes = ProtobufBytes()
        bytes.message(1) {
            $0.message(11) {
                $0.message(1) { $0.message(14) { $0.varint(1, 9) } }
            }
        }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["DownloadError.kind", "9"])
    }

    func testStateChangedWithoutDownloadThrows() {
        var bytes = ProtobufBytes()
        bytes.message(2) { $0.message(10) { $0.varint(2, 3) } }
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["StateChanged.download"])
    }

    func testBytesAboveInt64MaxThrow() {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.message(11) {
                $0.string(1, "x")
                $0.varint(2, UInt64.max)
            }
        }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(bytes.buffer), mentioning: ["Progress.downloaded_bytes", "\(UInt64.max)"])
    }

    func testGroupTotalsAboveInt64MaxThrowAndZeroAndTheLargestDecode() throws {
        var over = ProtobufBytes()
        over.message(1) {
            $0.varint(1, 7)
            $0.message(12) { $0.message(4) { $0.varint(1, UInt64.max) } }
        }
        WireTestSupport.assertInvalidArgument(
            try WireCodec.decodeServerMessage(over.buffer), mentioning: ["GroupTotals.bytes_downloaded", "\(UInt64.max)"])

        for value in [UInt64(0), UInt64(Int64.max)] {
            var edge = ProtobufBytes()
            edge.message(1) {
                $0.varint(1, 8)
                $0.message(12) {
                    $0.message(4) {
                        $0.varint(1, value)
                        $0.varint(2, value)
                        $0.varint(4, UInt64(UInt32.max))
                        // The same state twice: the counts add up.
                        $0.message(5) { $0.varint(1, 5); $0.varint(2, UInt64(UInt32.max)) }
                        $0.message(5) { $0.varint(1, 5); $0.varint(2, UInt64(UInt32.max)) }
                    }
                }
            }
            let message = try WireCodec.decodeServerMessage(edge.buffer)
            guard case .response(let response) = message, case .success(.list(let page)) = response.result else {
                return XCTFail("not a list response: \(message)")
            }
            XCTAssertEqual(page.totals.bytesDownloaded, Int64(value))
            XCTAssertEqual(page.totals.filesTotal, Int(UInt32.max))
            XCTAssertEqual(page.totals.states[DownloadState.completed], 2 * Int(UInt32.max))
        }
    }

    func testServerMessageWithNothingSetThrows() {
        WireTestSupport.assertInvalidArgument(try WireCodec.decodeServerMessage(ByteBuffer()), mentioning: ["ServerMessage"])
    }

    /// PROTOCOL.md section 7: a client skips an event kind it does not know, so the stream
    /// goes on past what a later daemon adds.
    func testEventOfALaterKindIsSkippable() throws {
        var bytes = ProtobufBytes()
        bytes.message(2) {
            $0.varint(1, 77)
            $0.message(40) { $0.string(1, "new kind") }
        }
        XCTAssertEqual(try WireCodec.decodeServerMessage(bytes.buffer), .laterEvent(seq: 77))
    }
}
