import Foundation
import StashCore
import XCTest

@testable import StashEngine

final class EntryTableTests: XCTestCase {
    private func entry(_ download: Download) -> DownloadEntry {
        DownloadEntry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: 0)
    }

    private let files = (0..<3).map { DownloadFile(url: "http://h/s\($0).ts", path: "video/seg0000\($0).ts", size: 10) }

    /// The cache must not share an HLS download's segment array with the engine, or every
    /// change to one segment copies them all; no answer carries an HLS segment list anyway.
    func testTheCacheHoldsAnHLSRecordWithoutItsSegments() {
        var table = EntryTable()
        var stream = Download(id: "s", uri: "http://h/master.m3u8", assetPath: "assets/s", files: files, hls: HLSOptions())
        stream.filesDone = 1
        table["s"] = entry(stream)
        table.cache.commit("s", stream)
        let cached = table.cache.get("s")
        XCTAssertEqual(cached?.files, [])
        XCTAssertEqual(cached?.filesTotal, 3, "the counts stay")
        XCTAssertEqual(cached?.filesDone, 1)
        XCTAssertEqual(table["s"]?.download.files.count, 3, "the engine keeps them")
    }

    /// Same for a bundle: GetDownload of a bundle, which lists its files, asks the engine.
    func testTheCacheHoldsABundleWithoutItsFiles() {
        let table = EntryTable()
        table.cache.commit("b", Download(id: "b", uri: "", assetPath: "assets/b", isBundle: true, files: files))
        XCTAssertEqual(table.cache.get("b")?.files, [])
        XCTAssertEqual(table.cache.get("b")?.isBundle, true, "the engine knows to answer from its own record")
        XCTAssertEqual(table.cache.get("b")?.filesTotal, 3)
    }

    /// Readers see only what is committed: a new download, and a change of state, show once
    /// the commit queue has written them; a running download's counters are live meanwhile.
    func testTheCacheShowsCommittedRecordsAndLiveCounters() {
        var table = EntryTable()
        var download = Download(id: "f", uri: "http://h/f", state: .queued, assetPath: "assets/f/f")
        table["f"] = entry(download)
        XCTAssertNil(table.cache.get("f"), "an add not yet committed is not shown")
        table.cache.commit("f", download)
        download.state = .downloading
        table["f"] = entry(download)
        XCTAssertEqual(table.cache.get("f")?.state, .queued, "a state not yet committed is not shown")
        table.cache.commit("f", download)
        download.downloadedBytes = 42
        download.speed = 7
        table["f"] = entry(download)
        XCTAssertEqual(table.cache.get("f")?.downloadedBytes, 42, "a running download's bytes are live")
        XCTAssertEqual(table.cache.get("f")?.speed, 7)
        var stale = download
        stale.downloadedBytes = 10
        table.cache.commit("f", stale)
        XCTAssertEqual(table.cache.get("f")?.downloadedBytes, 42, "a commit older than the live counters does not move them back")
        download.state = .paused
        download.downloadedBytes = 50
        table["f"] = entry(download)
        XCTAssertEqual(table.cache.get("f")?.state, .downloading)
        XCTAssertEqual(table.cache.get("f")?.downloadedBytes, 42, "counters of a change not yet committed wait for it")
        table.cache.commit("f", download)
        XCTAssertEqual(table.cache.get("f")?.state, .paused)
        XCTAssertEqual(table.cache.get("f")?.downloadedBytes, 50)
        table["f"] = nil
        XCTAssertNotNil(table.cache.get("f"), "a removal shows once committed")
        table.cache.commit("f", nil)
        XCTAssertNil(table.cache.get("f"))
    }

    /// The licence timer looks only at `licensed`: a download must be in it exactly while it
    /// holds licence terms, whichever way it got or lost them.
    func testLicensedFollowsTheDownloadsThatHoldTerms() {
        var table = EntryTable()
        var held = Download(id: "d", uri: "http://h/master.m3u8", assetPath: "assets/d", hls: HLSOptions())
        held.license = LicenseTerms(acquiredAt: Date(), expiresIn: 60, playbackDuration: nil, kids: ["k"])
        table["d"] = entry(held)
        table["plain"] = entry(Download(id: "plain", uri: "http://h/f", assetPath: "assets/plain/f"))
        XCTAssertEqual(table.licensed, ["d"])
        var taken = table.take("d")
        taken?.download.license = nil
        table["d"] = taken
        XCTAssertEqual(table.licensed, [], "released terms leave the set")
        table["d"] = entry(held)
        table["d"] = nil
        XCTAssertEqual(table.licensed, [], "a removed download leaves the set")
    }
}
