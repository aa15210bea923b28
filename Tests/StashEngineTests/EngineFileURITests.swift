import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// SetDownload's URL for one file of a bundle (`EngineState+Update`), on a real engine and
/// registry with the fetch service faked (`EngineHarness`).
final class EngineFileURITests: XCTestCase {
    /// A part file of `bytes` bytes for the running transfer of `url`: what a stop measures.
    private func writePart(_ harness: EngineHarness, _ url: String, bytes: Int) throws {
        let path = try XCTUnwrap(harness.fetch.transfer(url)).request.partPath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: bytes)))
    }

    func testABundleFilesNewURLKeepsItsBytesRestartsOnItAndSaysWhyWhenItsServerStartsOver() async throws {
        let harness = try await EngineHarness()
        let old = EngineHarness.url("b0")
        let other = EngineHarness.url("b1")
        let new = EngineHarness.url("b0", host: "mirror.test")
        try await harness.addBundle("b", urls: [old, other])
        harness.fetch.respond(old, total: 1000)
        harness.fetch.respond(other, total: 1000)
        try writePart(harness, old, bytes: 400)
        harness.fetch.progress(old, bytes: 400)
        try await harness.settle()

        let changed = try await harness.engine.setURI(id: "b", new, file: "f0.bin")
        XCTAssertEqual(changed.files.map(\.url), [new, other], "only the named file gets the new URL")
        XCTAssertTrue(harness.fetch.stopped.contains(old), "the transfer on the old URL stops")
        try await harness.eventually("a transfer on the new URL") { harness.fetch.transfer(new) != nil }
        let resumed = try await harness.record("b")
        XCTAssertEqual(resumed.files[0].downloadedBytes, 400, "the bytes held are kept for the new URL's If-Range")

        harness.fetch.respond(new, total: 1000, resumedFrom: 0)
        try await harness.settle()
        let restarted = try await harness.record("b")
        XCTAssertEqual(restarted.stateReason, "file 'f0.bin': its new URL serves other content; it started again")
        XCTAssertEqual(restarted.files[0].downloadedBytes, 0)

        try await harness.restart()
        let stored = try await harness.record("b")
        XCTAssertEqual(stored.files.map(\.url), [new, other], "the new URL survives a restart")
        await harness.stop()
    }

    func testANewURLOfABundleFileNotRunningLeavesTheOtherTransfersAlone() async throws {
        let harness = try await EngineHarness()
        let first = EngineHarness.url("c0")
        let second = EngineHarness.url("c1")
        let new = EngineHarness.url("c1", host: "mirror.test")
        try await harness.addBundle("c", urls: [first, second])
        try await harness.complete(second)
        try await harness.settle()
        let before = try await harness.record("c").state

        let changed = try await harness.engine.setURI(id: "c", new, file: "f1.bin")
        XCTAssertEqual(changed.files[1].url, new)
        XCTAssertEqual(harness.fetch.stopped, [], "a file already fetched needs no transfer stopped")
        XCTAssertEqual(changed.state, before, "the download goes on as it was")
        XCTAssertNotNil(harness.fetch.transfer(first), "the other file's transfer runs on")
        await harness.stop()
    }

    func testAFailedBundleFileSaysHowToRenewItsURLWithItsPath() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("d1")
        try await harness.addBundle("d", urls: [EngineHarness.url("d0"), url])
        harness.fetch.send(url, .failed(DownloadError(.http, "HTTP 410 Gone", httpStatus: 410)))
        try await harness.settle()
        let failed = try await harness.record("d")
        XCTAssertEqual(failed.state, .failed)
        let message = try XCTUnwrap(failed.error).message
        XCTAssertTrue(message.contains("stash set d --file 'f1.bin' --uri URL, then stash resume d"), message)

        let new = EngineHarness.url("d1", host: "mirror.test")
        let changed = try await harness.engine.setURI(id: "d", new, file: "f1.bin")
        XCTAssertEqual(changed.state, .failed, "a failed download waits for its resume")
        _ = try await harness.engine.resume(id: "d")
        try await harness.eventually("a transfer on the new URL") { harness.fetch.transfer(new) != nil }
        await harness.stop()
    }

    func testAFileIsRefusedNamingThePathForAnUnknownPathASingleFileAndAnEmptyPath() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        try await harness.addBundle("b", urls: [EngineHarness.url("b0")])
        let new = "http://mirror.test/x.bin"
        let long = String(repeating: "p", count: 100_000)
        let refusals: [(String, String?, StashError.Code, String)] = [
            ("b", "nope.bin", .notFound, "bundle 'b' has no file 'nope.bin'; stash show b lists its files' paths"),
            ("b", long, .notFound, "has no file '\(String(repeating: "p", count: 256))'"),
            ("b", nil, .invalidArgument, "--file PATH"),
            ("b", "", .invalidArgument, "--file PATH"),
            ("a", "a.bin", .invalidArgument, "'a' is a single-file download, it has no file 'a.bin'"),
            // A path names a file of the record, never a place on disk: a NUL, a way out of the
            // folder or the data dir itself name nothing.
            ("b", "f0.bin\u{0}", .notFound, "has no file 'f0.bin"),
            ("b", "../b/f0.bin", .notFound, "has no file '../b/f0.bin'"),
            ("b", harness.dataDir + "/stash.sqlite", .notFound, "has no file '\(harness.dataDir)/stash.sqlite'"),
            ("b", "f0.bin/", .notFound, "has no file 'f0.bin/'"),
        ]
        for (id, path, code, text) in refusals {
            do {
                _ = try await harness.engine.setURI(id: id, new, file: path)
                XCTFail("\(path ?? "no path") for \(id) is refused")
            } catch let error as StashError {
                XCTAssertEqual(error.code, code, error.message)
                XCTAssertTrue(error.message.contains(text), error.message)
                XCTAssertLessThan(error.message.utf8.count, 1000, "a long path is cut in the message")
            }
        }
        let kept = try await harness.record("b")
        XCTAssertEqual(kept.files.map(\.url), [EngineHarness.url("b0")], "a refusal changes nothing")
        XCTAssertEqual(harness.fetch.stopped, [])
        await harness.stop()
    }
}
