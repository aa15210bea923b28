import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// A download retrying a host that is down gives up its slot for its backoff: the others in
/// the queue go on meanwhile. Through a real stashd, a refused connection and a real server.
final class RetrySlotTests: DaemonTestCase {
    /// One slot, a long backoff: the healthy download added after the dead one completes while
    /// the dead one waits for its retry, QUEUED with the reason.
    override var fixtureConfig: [(key: String, value: String)] {
        [(key: "max-parallel", value: "1"), (key: "retry-base-delay-ms", value: "60000"), (key: "retry-max-delay-ms", value: "60000")]
    }

    func testAHostThatIsDownHoldsUpNoOtherDownload() async throws {
        http.serve(path: "/ok.bin", size: 65_536)
        _ = try await client.addDownload(AddDownloadRequest(id: "dead", uri: "http://127.0.0.1:1/gone.bin"))
        let waiting = try await waitUntil("dead") { $0.stateReason.hasPrefix("retrying in 60000 ms after attempt 1") }
        XCTAssertEqual(waiting.state, .queued, "it waits for its retry without a slot: \(waiting.stateReason)")

        _ = try await client.addDownload(AddDownloadRequest(id: "ok", uri: http.url("/ok.bin")))
        let done = try await waitFor("ok", .completed)
        XCTAssertEqual(done.downloadedBytes, 65_536)
        let dead = try await client.getDownload(id: "dead")
        XCTAssertEqual(dead.state, .queued, "still waiting out its minute: \(dead.stateReason)")
        XCTAssertTrue(dead.stateReason.contains("127.0.0.1:1"), dead.stateReason)
        try await client.cancel(id: "dead")
    }

    /// A stream whose playlist server answers 503 gives up its slot while reading the playlist
    /// waits to retry (it is QUEUED, not PREPARING); the healthy download behind it completes.
    /// The same for an MPD.
    func testAStreamWhosePlaylistServerFailsHoldsUpNoOtherDownload() async throws {
        for path in ["/live/master.m3u8", "/live/film.mpd"] {
            http.serve(path: path, size: 100)
            http.update(path: path) {
                $0.failStatus = 503
                $0.failTimes = 100
            }
        }
        http.serve(path: "/ok.bin", size: 65_536)
        _ = try await client.addDownload(AddDownloadRequest(id: "film", uri: http.url("/live/master.m3u8")))
        _ = try await client.addDownload(AddDownloadRequest(id: "dash", uri: http.url("/live/film.mpd")))
        _ = try await client.addDownload(AddDownloadRequest(id: "ok", uri: http.url("/ok.bin")))
        let done = try await waitFor("ok", .completed)
        XCTAssertEqual(done.downloadedBytes, 65_536)
        for id in ["film", "dash"] {
            let stream = try await client.getDownload(id: id)
            XCTAssertEqual(stream.state, .queued, "\(id): \(stream.stateReason)")
            XCTAssertTrue(stream.stateReason.hasPrefix("retrying in 60000 ms after attempt 1: "), stream.stateReason)
            XCTAssertTrue(stream.stateReason.contains("HTTP 503"), stream.stateReason)
            try await client.cancel(id: id)
        }
    }

    /// A bundle whose server answers 503 to every file: once all its files wait to retry it
    /// gives up its slot, and the healthy download behind it completes meanwhile.
    func testABundleFromAFailingServerHoldsUpNoOtherDownload() async throws {
        for page in 0..<3 {
            http.serve(path: "/c/\(page).jpg", size: 1000)
            http.update(path: "/c/\(page).jpg") {
                $0.failStatus = 503
                $0.failTimes = 100
            }
        }
        http.serve(path: "/ok.bin", size: 65_536)
        _ = try await client.addDownload(AddDownloadRequest(
            id: "chapter", uri: "", files: (0..<3).map { BundleFileSpec(url: http.url("/c/\($0).jpg"), path: "\($0).jpg") }))
        _ = try await client.addDownload(AddDownloadRequest(id: "ok", uri: http.url("/ok.bin")))
        let done = try await waitFor("ok", .completed)
        XCTAssertEqual(done.downloadedBytes, 65_536)
        let chapter = try await client.getDownload(id: "chapter")
        XCTAssertEqual(chapter.state, .queued, chapter.stateReason)
        XCTAssertTrue(chapter.stateReason.hasPrefix("retrying in 60000 ms after attempt 1: file '"), chapter.stateReason)
        XCTAssertTrue(chapter.stateReason.contains("HTTP 503"), chapter.stateReason)
        try await client.cancel(id: "chapter")
    }
}
