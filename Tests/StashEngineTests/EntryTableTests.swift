import Foundation
import StashCore
import XCTest

@testable import StashEngine

final class EntryTableTests: XCTestCase {
    private func entry(_ download: Download) -> Engine.Entry {
        Engine.Entry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: 0)
    }

    private let files = (0..<3).map { DownloadFile(url: "http://h/s\($0).ts", path: "video/seg0000\($0).ts", size: 10) }

    /// The cache must not share an HLS download's segment array with the engine, or every
    /// change to one segment copies them all; no answer carries an HLS segment list anyway.
    func testTheCacheHoldsAnHLSRecordWithoutItsSegments() {
        var table = EntryTable()
        var stream = Download(id: "s", uri: "http://h/master.m3u8", assetPath: "assets/s", files: files, hls: HLSOptions())
        stream.filesDone = 1
        table["s"] = entry(stream)
        let cached = table.cache.get("s")
        XCTAssertEqual(cached?.files, [])
        XCTAssertEqual(cached?.filesTotal, 3, "the counts stay")
        XCTAssertEqual(cached?.filesDone, 1)
        XCTAssertEqual(table["s"]?.download.files.count, 3, "the engine keeps them")
    }

    /// Same for a bundle: GetDownload of a bundle, which lists its files, asks the engine.
    func testTheCacheHoldsABundleWithoutItsFiles() {
        var table = EntryTable()
        table["b"] = entry(Download(id: "b", uri: "", assetPath: "assets/b", isBundle: true, files: files))
        XCTAssertEqual(table.cache.get("b")?.files, [])
        XCTAssertEqual(table.cache.get("b")?.isBundle, true, "the engine knows to answer from its own record")
        XCTAssertEqual(table.cache.get("b")?.filesTotal, 3)
    }

    func testTakeLeavesTheCacheUntilTheEntryIsPutBack() {
        var table = EntryTable()
        table["f"] = entry(Download(id: "f", uri: "http://h/f", assetPath: "assets/f/f"))
        var taken = table.take("f")
        XCTAssertNil(table["f"])
        XCTAssertNotNil(table.cache.get("f"), "readers still see the last record")
        taken?.download.downloadedBytes = 42
        table["f"] = taken
        XCTAssertEqual(table.cache.get("f")?.downloadedBytes, 42)
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
