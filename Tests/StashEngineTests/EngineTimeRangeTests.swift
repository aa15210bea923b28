import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// An HLS download of part of a stream, through the engine: only the window's segments are
/// fetched, an end past the stream is clamped in the record, the range survives a restart, and
/// a start past the stream fails the download naming both.
final class EngineTimeRangeTests: XCTestCase {
    /// Ten 2 s segments: 20 s.
    static let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        + (0..<10).map { "#EXTINF:2.0,\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"

    func harness() async throws -> EngineHarness {
        let harness = try await EngineHarness()
        harness.fetch.answerBodies { request in
            guard request.url == "http://h.test/film.m3u8" else { throw DownloadError(.network, "\(request.url) cannot be reached") }
            return FetchedBody(bytes: Array(Self.playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
        }
        return harness
    }

    func add(_ harness: EngineHarness, start: Double?, end: Double?) async throws -> Download {
        try await harness.engine.add(AddRequest(
            id: "film", uri: "http://h.test/film.m3u8",
            hls: HLSOptions(start: start, end: end))).download
    }

    func testOnlyTheWindowIsFetchedAndAnEndPastTheStreamIsClampedInTheRecord() async throws {
        let harness = try await harness()
        let added = try await add(harness, start: 15, end: 700)
        XCTAssertEqual(added.hls?.end, 700, "the add answers with the range asked for; the playlist is not read yet")
        let window = ["http://h.test/seg7.ts", "http://h.test/seg8.ts", "http://h.test/seg9.ts"]
        try await harness.eventually("the window's segments are fetched") { Set(harness.fetch.runningURLs) == Set(window) }
        // The transfers start as the plan is decided; the record answers once it is committed.
        try await harness.eventually("the plan is committed") { try await harness.record("film").filesTotal > 0 }
        let planned = try await harness.record("film")
        XCTAssertEqual(planned.filesTotal, 3)
        XCTAssertEqual(planned.hls?.start, 15)
        XCTAssertEqual(planned.hls?.end, 20, "the record says what the package holds")
        let playlist = try String(contentsOfFile: harness.dataDir + "/assets/film/video/index.m3u8", encoding: .utf8)
        XCTAssertTrue(playlist.contains("#EXT-X-MEDIA-SEQUENCE:7\n"), playlist)
        XCTAssertEqual(playlist.components(separatedBy: "#EXTINF").count - 1, 3, playlist)

        // A restart plans the package again from its stored range: the same three segments.
        try await harness.complete(window[0])
        try await harness.restart()
        let reloaded = try await harness.record("film")
        XCTAssertEqual(reloaded.hls?.start, 15)
        XCTAssertEqual(reloaded.hls?.end, 20)
        try await harness.eventually("the rest is fetched again") { Set(harness.fetch.runningURLs) == Set(window.dropFirst()) }
        for url in window.dropFirst() { try await harness.complete(url) }
        try await harness.eventually("COMPLETED") { try await harness.stateOf("film") == .completed }
        let done = try await harness.record("film")
        XCTAssertEqual(done.filesDone, 3)
        XCTAssertEqual(Set(harness.fetch.started), Set(window), "no segment outside the window was ever asked for")
        await harness.stop()
    }

    func testAStartPastTheStreamFailsNamingItAndTheDuration() async throws {
        let harness = try await harness()
        _ = try await add(harness, start: 20, end: nil)
        try await harness.eventually("FAILED") { try await harness.stateOf("film") == .failed }
        let failed = try await harness.record("film")
        XCTAssertEqual(failed.error?.kind, .validation)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("hls.start 20") && message.contains("lasts 20 s"), message)
        XCTAssertEqual(harness.fetch.started, [], "nothing fetched")
        await harness.stop()
    }

    func testASubtitleRenditionOutsideTheRangeIsLeftOutAndTheRecordSaysSo() async throws {
        let harness = try await EngineHarness()
        let bodies: [String: String] = [
            "http://h.test/show.m3u8": """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",URI="subs.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=800000,SUBTITLES="subs"
                film.m3u8

                """,
            "http://h.test/film.m3u8": Self.playlist,
            // Subtitles for the first 8 s only.
            "http://h.test/subs.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.vtt\n#EXTINF:4,\ns1.vtt\n#EXT-X-ENDLIST\n",
        ]
        harness.fetch.answerBodies { request in
            guard let body = bodies[request.url] else { throw DownloadError(.network, "\(request.url) cannot be reached") }
            return FetchedBody(bytes: Array(body.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
        }
        _ = try await harness.engine.add(AddRequest(
            id: "late", uri: "http://h.test/show.m3u8", hls: HLSOptions(subtitles: ["en"], start: 16)))
        try await harness.eventually("the window's segments are fetched") {
            Set(harness.fetch.runningURLs) == ["http://h.test/seg8.ts", "http://h.test/seg9.ts"]
        }
        // The transfers start before the planned record is durable; the record answers once it is.
        try await harness.eventually("the plan is committed") { try await harness.record("late").filesTotal > 0 }
        let planned = try await harness.record("late")
        XCTAssertEqual(planned.filesTotal, 2, "no subtitle segment")
        XCTAssertFalse(planned.hasSubtitles, "the package has none")
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.dataDir + "/assets/late/subtitles"))
        await harness.stop()
    }

    func testARangeNoStreamHoldsIsRefusedAtTheAdd() async throws {
        let harness = try await harness()
        for (start, end) in [(-1, nil), (.nan, nil), (nil, .infinity), (nil, 1e308), (60, 30)] as [(Double?, Double?)] {
            do {
                _ = try await add(harness, start: start, end: end)
                XCTFail("\(String(describing: start))-\(String(describing: end)) was added")
            } catch let error as StashError {
                XCTAssertEqual(error.code, .invalidArgument)
                XCTAssertTrue(error.message.hasPrefix("hls.start") || error.message.hasPrefix("hls.end"), error.message)
            }
        }
        let list = try await harness.engine.list(states: [], pageSize: 10, pageToken: "")
        XCTAssertEqual(list.downloads, [], "nothing stored")
        await harness.stop()
    }
}
