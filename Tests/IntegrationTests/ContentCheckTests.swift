import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Content checks on a real daemon: an error page served with 200 is no chapter page, a
/// short body is refused, and an HLS segment that is not its container fails the download.
final class ContentCheckTests: DaemonTestCase {
    private let html = Array("<!DOCTYPE html>\n<html><body>Chapter not found</body></html".utf8)
    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) } + [0xFF, 0xD9]

    private func assetFiles(_ id: String) -> [String] {
        (try? FileManager.default.subpathsOfDirectory(atPath: daemon.dataDir + "/assets/" + id)) ?? []
    }

    private func add(_ id: String, _ path: String, expect: String = "", minSize: Int64 = 0) async throws {
        _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url(path), expect: expect, minSize: minSize))
    }

    /// A daemon before content checks ignores the rules and would keep an error page as a
    /// chapter page: the client and the command line refuse to ask it, for the download's rules
    /// and for a file's own.
    func testRulesAreNotSentToADaemonWithoutContentChecks() async throws {
        let older = try OlderDaemonProxy(
            upstream: daemon.socketPath, socketPath: (daemon.socketPath as NSString).deletingLastPathComponent + "/older.sock",
            hiddenFeatures: ["content-check"], unknownOps: { _ in false })
        defer { older.stop() }
        let oldClient = try await StashClient.connect(socketPath: older.socketPath)
        let requests = [
            AddDownloadRequest(id: "old", uri: http.url("/x.jpg"), expect: "image"),
            AddDownloadRequest(id: "old", uri: http.url("/x.jpg"), minSize: 1),
            AddDownloadRequest(id: "old", uri: "", files: [BundleFileSpec(url: http.url("/1.jpg")), BundleFileSpec(url: http.url("/2.jpg"), minSize: 1)]),
        ]
        for request in requests {
            let refused = await assertFails(.unimplemented) { try await oldClient.addDownload(request) }
            XCTAssertTrue(refused?.message.contains("feature \"content-check\"") ?? false, "\(String(describing: refused))")
        }
        await oldClient.close()
        let cli = try DaemonProcess.run(
            executable: DaemonProcess.executableURL(named: "stash"),
            arguments: ["add", http.url("/x.jpg"), "--expect", "image", "--socket", older.socketPath])
        XCTAssertNotEqual(cli.status, 0)
        XCTAssertTrue(cli.stderr.contains("does not check content"), cli.stderr)
        let added = try await client.listDownloads().total
        XCTAssertEqual(added, 0, "nothing added")
    }

    func testAnHTMLPageServedAsAJPEGFailsAndKeepsNothing() async throws {
        http.serve(path: "/page.jpg", route: TestRoute(body: .bytes(html), contentType: "text/html"))
        try await add("page", "/page.jpg", expect: "image")
        let failed = try await waitFor("page", .failed)
        XCTAssertEqual(failed.error?.kind, .validation)
        XCTAssertEqual(failed.error?.message, "page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')")
        XCTAssertEqual(failed.expect, "image")
        XCTAssertEqual(assetFiles("page").filter { $0.hasPrefix("page.jpg") }, [], "neither the file nor its part file")

        // Without the check it is what it was before: a 58-byte "page".
        var unchecked = AddDownloadRequest(id: "unchecked", uri: http.url("/page.jpg"))
        unchecked.force = true
        _ = try await client.addDownload(unchecked)
        try await waitFor("unchecked", .completed)
    }

    func testTheCLISaysWhatCameAndExits1() async throws {
        http.serve(path: "/ch12/page.jpg", route: TestRoute(body: .bytes(html), contentType: "text/html"))
        let result = try daemon.runCLI(["add", http.url("/ch12/page.jpg"), "--id", "page", "--expect", "image", "--min-size", "10", "--wait"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(
            "stash: download page ended FAILED: validation error: page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')"),
            result.stderr)
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString).txt")
        try "\(http.url("/ch12/page.jpg"))\tp/1.jpg\t\t\timage\n\(http.url("/ch12/page.jpg"))\tnotes.html\t\t\ttext/html\t20\n"
            .write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let bundle = try daemon.runCLI(["add", "--bundle", "--id", "ch12", "--from-file", list.path, "--json"])
        XCTAssertEqual(bundle.status, 0, bundle.stderr)
        let record = try await client.getDownload(id: "ch12")
        XCTAssertEqual(record.files.map(\.expect), ["image", "text/html"])
        XCTAssertEqual(record.files.map(\.minSize), [0, 20])
    }

    func testARealJPEGPassesAndTheRulesAreShown() async throws {
        http.serve(path: "/real.jpg", route: TestRoute(body: .bytes(jpeg), contentType: "image/jpeg"))
        try await add("real", "/real.jpg", expect: "IMAGE", minSize: 1000)
        let done = try await waitFor("real", .completed)
        XCTAssertEqual(done.expect, "image", "kept lowercased")
        XCTAssertEqual(done.minSize, 1000)
        XCTAssertEqual(FileManager.default.contents(atPath: daemon.dataDir + "/assets/real/real.jpg").map { [UInt8]($0) }, jpeg)

        let shown = try daemon.runCLI(["show", "real", "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(record["expect"] as? String, "image")
        XCTAssertEqual(record["minSize"] as? Int, 1000)
        let text = try daemon.runCLI(["show", "real"])
        XCTAssertTrue(text.stdout.contains("expect: image, at least 1000 bytes"), text.stdout)
    }

    func testAMinimumSizeRefusesAShortBody() async throws {
        http.serve(path: "/thumb.jpg", route: TestRoute(body: .bytes(jpeg), contentType: "image/jpeg"))
        try await add("thumb", "/thumb.jpg", minSize: 100_000)
        let failed = try await waitFor("thumb", .failed)
        XCTAssertEqual(failed.error?.message, "thumb.jpg: expected at least 100000 bytes, got \(jpeg.count) bytes (the size the server announced)")
        XCTAssertEqual(assetFiles("thumb").filter { $0.hasPrefix("thumb.jpg") }, [])
    }

    func testBadRulesAreRefusedNamingTheField() async throws {
        do {
            try await add("bad", "/x.jpg", expect: "picture")
            XCTFail("expect 'picture' is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.hasPrefix("expect 'picture' is not image, video, audio, text or a MIME type"), error.message)
        }
        do {
            try await add("bad", "/x.jpg", minSize: -1)
            XCTFail("a negative min_size is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("min_size"), error.message)
        }
        var bundle = AddDownloadRequest(id: "b", uri: "", files: [
            BundleFileSpec(url: http.url("/1.jpg"), path: "1.jpg", expect: "image"),
            BundleFileSpec(url: http.url("/2.jpg"), path: "2.jpg", expect: "image/"),
        ])
        bundle.force = true
        do {
            _ = try await client.addDownload(bundle)
            XCTFail("files[1].expect is refused")
        } catch let error as StashError {
            XCTAssertTrue(error.message.hasPrefix("files[1] '2.jpg': expect 'image/' is not image"), error.message)
        }
    }

    /// Each file of a bundle has its own rule, or the bundle's; the one that fails is named.
    func testABundleFileOfTheWrongKindFailsNamingIt() async throws {
        http.serve(path: "/1.jpg", route: TestRoute(body: .bytes(jpeg)))
        http.serve(path: "/2.jpg", route: TestRoute(body: .bytes(html), contentType: "text/html"))
        http.serve(path: "/notes.txt", route: TestRoute(body: .bytes(Array("page notes\n".utf8))))
        var request = AddDownloadRequest(id: "chapter", uri: "", files: [
            BundleFileSpec(url: http.url("/1.jpg"), path: "p/1.jpg"),
            BundleFileSpec(url: http.url("/2.jpg"), path: "p/2.jpg"),
            BundleFileSpec(url: http.url("/notes.txt"), path: "notes.txt", expect: "text"),
        ])
        request.expect = "image"
        _ = try await client.addDownload(request)
        let failed = try await waitFor("chapter", .failed)
        XCTAssertEqual(failed.error?.message, "file 'p/2.jpg' (\(http.url("/2.jpg"))): expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')")
        XCTAssertEqual(failed.files.map(\.expect), ["image", "image", "text"])
        XCTAssertFalse(assetFiles("chapter").contains { $0.hasPrefix("p/2.jpg") })
    }

    // MARK: - HLS

    private func tsSegment(_ index: Int) -> [UInt8] {
        (0..<20).flatMap { packet in [0x47, 0x40, UInt8(index), UInt8(packet)] + [UInt8](repeating: 0xFF, count: 184) }
    }

    private func servePlaylist(_ prefix: String, key: String? = nil) {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if let key { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"\(key)\"") }
        for index in 0..<3 { lines += ["#EXTINF:4.0,", "s\(index).ts"] }
        lines.append("#EXT-X-ENDLIST")
        http.serve(path: "\(prefix)/index.m3u8", body: Array((lines.joined(separator: "\n") + "\n").utf8))
    }

    func testAnHLSSegmentReplacedByAnHTMLPageFailsTheDownloadNamingIt() async throws {
        servePlaylist("/clear")
        for index in 0..<3 { http.serve(path: "/clear/s\(index).ts", body: tsSegment(index)) }
        _ = try await client.addDownload(AddDownloadRequest(id: "clear", uri: http.url("/clear/index.m3u8")))
        let complete = try await waitFor("clear", .completed)
        XCTAssertEqual(complete.filesTotal, 3)

        servePlaylist("/broken")
        for index in [0, 2] { http.serve(path: "/broken/s\(index).ts", body: tsSegment(index)) }
        http.serve(path: "/broken/s1.ts", route: TestRoute(body: .bytes(html), contentType: "text/html"))
        _ = try await client.addDownload(AddDownloadRequest(id: "broken", uri: http.url("/broken/index.m3u8")))
        let failed = try await waitFor("broken", .failed)
        let message = failed.error?.message ?? ""
        XCTAssertEqual(failed.error?.kind, .validation)
        XCTAssertTrue(message.contains("seg00001.ts' (\(http.url("/broken/s1.ts"))): expected an MPEG-TS segment (sync byte 0x47 at 0, 188 and 376), got text/html (58 bytes starting '<!DOCTYPE html>')"), message)
        XCTAssertFalse(assetFiles("broken").contains { $0.hasSuffix("seg00001.ts") || $0.hasSuffix("seg00001.ts.part") })
    }

    /// AES-128 segments are ciphertext until decrypted, which stash does only at playback or
    /// export: they are not checked (an HTML page in their place is not caught here).
    func testEncryptedSegmentsAreNotChecked() async throws {
        servePlaylist("/enc", key: "k.key")
        http.serve(path: "/enc/k.key", body: [UInt8](repeating: 0x2A, count: 16))
        for index in 0..<3 { http.serve(path: "/enc/s\(index).ts", body: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }) }
        _ = try await client.addDownload(AddDownloadRequest(id: "enc", uri: http.url("/enc/index.m3u8")))
        let done = try await waitFor("enc", .completed)
        XCTAssertEqual(done.filesTotal, 3)
    }

    func testExpectIsRefusedForAnHLSStream() async throws {
        var request = AddDownloadRequest(id: "hls", uri: http.url("/x/index.m3u8"))
        request.expect = "video"
        do {
            _ = try await client.addDownload(request)
            XCTFail("expect with HLS is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.message, "expect and min_size apply to files, not to an HLS stream; its segments are always checked for their container's signature")
        }
    }
}
