import Foundation
import StashHLS
import StashTestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ffmpeg-made HLS fixtures, served by the test server and read back through the
/// playlist parser and ffmpeg itself: what the HLS integration tests build on.
final class HLSFixtureTests: XCTestCase {
    private var server: TestHTTPServer!
    private var directory = ""

    override func setUpWithError() throws {
        guard HLSFixture.isAvailable else { throw XCTSkip("ffmpeg and ffprobe are not installed") }
        directory = try DaemonProcess.makeTemporaryDirectory(prefix: "hls-fixture-test")
        server = try TestHTTPServer.start()
    }

    override func tearDown() {
        server?.stop()
        if !directory.isEmpty { try? FileManager.default.removeItem(atPath: directory) }
    }

    func testTSAES128ServesThreeEncryptedVariantsAndTwoSubtitleRenditions() async throws {
        let fixture = try timed("tsAES128") { try HLSFixture.tsAES128(in: directory) }
        server.serveDirectory(fixture.directory, at: "/hls")

        let masterResponse = try await fetch("/hls/" + fixture.masterPath)
        XCTAssertEqual(masterResponse.status, 200)
        XCTAssertEqual(masterResponse.header("Content-Type"), "application/vnd.apple.mpegurl")
        guard case .master(let master) = try Playlist.parse(masterResponse.body, baseURL: server.url("/hls/master.m3u8")) else {
            return XCTFail("master.m3u8 is not a master playlist")
        }
        XCTAssertEqual(master.variants.count, 3)
        XCTAssertEqual(master.variants.map(\.bandwidth), [400_000, 1_600_000, 3_200_000])
        XCTAssertEqual(master.variants.map { $0.resolution?.height }, [144, 240, 360])
        XCTAssertEqual(master.variants.map(\.uri), fixture.variants.map { server.url("/hls/" + $0.path) })
        XCTAssertTrue(master.variants.allSatisfy { $0.subtitlesGroup == "subs" && $0.codecs == ["avc1.42c01e", "mp4a.40.2"] })
        let subtitles = master.renditions.filter { $0.type == .subtitles }
        XCTAssertEqual(subtitles.map(\.language), ["en", "es"])
        XCTAssertEqual(subtitles.map(\.name), ["English", "Español"])
        XCTAssertEqual(fixture.subtitleLanguages, ["en", "es"])
        XCTAssertTrue(subtitles.allSatisfy { $0.groupID == "subs" })

        let keyResponse = try await fetch("/hls/" + XCTUnwrap(fixture.keyPath))
        XCTAssertEqual(keyResponse.body, hexBytes(try XCTUnwrap(fixture.keyHex)))
        for (index, variant) in fixture.variants.enumerated() {
            let media = try await mediaPlaylist("/hls/" + variant.path)
            XCTAssertEqual(media.segments.count, 6)
            XCTAssertEqual(media.playlistType, .vod)
            for segment in media.segments {
                XCTAssertEqual(segment.key?.method, .aes128, "\(variant.path) segment \(segment.sequenceNumber)")
                XCTAssertEqual(segment.key?.uri, server.url("/hls/keys/aes.key"))
                XCTAssertEqual(segment.key?.iv, variant.ivHex.map(hexBytes), "\(variant.path) segment \(segment.sequenceNumber)")
                // BANDWIDTH is a real peak: no segment needs more.
                let size = try fileSize(fixture.directory + "/" + relativePath(segment.uri))
                XCTAssertLessThanOrEqual(Double(size * 8) / segment.duration, Double(variant.bandwidth), segment.uri)
            }
            XCTAssertEqual(variant.ivHex == nil, index == 1, "v1 has the implicit IV, the others an explicit one")
        }

        let segment = try await fetch("/hls/v0/seg003.ts")
        XCTAssertEqual(segment.header("Content-Type"), "video/mp2t")
        XCTAssertEqual(segment.body, try fileBytes(fixture.directory + "/v0/seg003.ts"))
        XCTAssertEqual(server.requests(for: "/hls/v0/seg003.ts").count, 1)
        XCTAssertEqual(server.requests(for: "/hls/v0/seg004.ts").count, 0)

        for subtitle in fixture.subtitles {
            let media = try await mediaPlaylist("/hls/" + subtitle.path)
            XCTAssertEqual(media.playlistType, .vod)
            XCTAssertEqual(media.segments.count, 3)
            let vtt = try await fetch("/hls/" + relativePath(media.segments[0].uri))
            XCTAssertEqual(vtt.header("Content-Type"), "text/vtt")
            XCTAssertTrue(String(decoding: vtt.body, as: UTF8.self).hasPrefix("WEBVTT\n"))
        }

        // The two IV forms both decrypt: ffmpeg decodes every frame without an error.
        for variant in fixture.variants.prefix(2) {
            let frames = try timed("decode \(variant.path)") {
                try HLSFixture.decodedFrames(playlist: fixture.directory + "/" + variant.path)
            }
            XCTAssertEqual(frames, variant.frameCount)
        }
        XCTAssertEqual(fixture.variants.map(\.frameCount), [300, 300, 300])
    }

    func testFMP4HasAnInitSectionAndDecodes() async throws {
        let fixture = try timed("fmp4") { try HLSFixture.fmp4(in: directory) }
        server.serveDirectory(fixture.directory, at: "/f")
        guard case .master(let master) = try await playlist("/f/" + fixture.masterPath) else {
            return XCTFail("master.m3u8 is not a master playlist")
        }
        XCTAssertEqual(master.variants.count, 1)
        let media = try await mediaPlaylist("/f/" + fixture.variants[0].path)
        XCTAssertEqual(media.segments.count, 6)
        XCTAssertTrue(media.segments.allSatisfy { $0.map?.uri == server.url("/f/v0/init.mp4") && $0.key == nil })
        XCTAssertTrue(media.segments.allSatisfy { $0.uri.hasSuffix(".m4s") })
        let initSection = try await fetch("/f/v0/init.mp4")
        XCTAssertEqual(initSection.status, 200)
        XCTAssertEqual(initSection.header("Content-Type"), "video/mp4")
        XCTAssertEqual(Array(initSection.body[4..<8]), Array("ftyp".utf8))

        let playlistPath = fixture.directory + "/" + fixture.variants[0].path
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: playlistPath), fixture.variants[0].frameCount)
        XCTAssertEqual(try HLSFixture.frameCount(of: playlistPath), fixture.variants[0].frameCount)
    }

    func testSingleFileSegmentsAreByteRangesOfOneFile() async throws {
        let fixture = try timed("singleFileByteRange") { try HLSFixture.singleFileByteRange(in: directory) }
        server.serveDirectory(fixture.directory, at: "/b")
        let media = try await mediaPlaylist("/b/" + fixture.variants[0].path)
        XCTAssertEqual(media.segments.count, 6)
        XCTAssertEqual(Set(media.segments.map(\.uri)), [server.url("/b/v0/media.ts")])
        let ranges = media.segments.compactMap(\.byteRange)
        XCTAssertEqual(ranges.count, media.segments.count, "every segment has a byte range")
        XCTAssertEqual(ranges.first?.offset, 0)
        for (previous, next) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(next.offset, previous.end) }
        let file = try fileBytes(fixture.directory + "/v0/media.ts")
        XCTAssertEqual(ranges.last?.end, UInt64(file.count))

        // A closed range, as a byte-range segment is fetched.
        let third = ranges[2]
        let segment = try await fetch("/b/v0/media.ts", range: "bytes=\(third.offset)-\(third.end - 1)")
        XCTAssertEqual(segment.status, 206)
        XCTAssertEqual(segment.header("Content-Range"), "bytes \(third.offset)-\(third.end - 1)/\(file.count)")
        XCTAssertEqual(segment.body, Array(file[Int(third.offset)..<Int(third.end)]))
        let ten = try await fetch("/b/v0/media.ts", range: "bytes=10-19")
        XCTAssertEqual(ten.status, 206)
        XCTAssertEqual(ten.header("Content-Length"), "10")
        XCTAssertEqual(ten.header("Content-Range"), "bytes 10-19/\(file.count)")
        XCTAssertEqual(ten.body, Array(file[10..<20]))

        XCTAssertEqual(
            try HLSFixture.decodedFrames(playlist: fixture.directory + "/" + fixture.variants[0].path), fixture.variants[0].frameCount)
    }

    func testFixturesAreDeterministic() throws {
        let first = try HLSFixture.tsAES128(in: directory + "/first", seconds: 4)
        let second = try HLSFixture.tsAES128(in: directory + "/second", seconds: 4)
        let files = try FileManager.default.subpathsOfDirectory(atPath: first.directory).sorted()
        XCTAssertEqual(files, try FileManager.default.subpathsOfDirectory(atPath: second.directory).sorted())
        XCTAssertTrue(files.contains("v2/seg001.ts"))
        for path in files where path.contains(".") {
            // Compared as hashes: a failure prints two lines, not megabytes.
            XCTAssertEqual(try sha256(first.directory + "/" + path), try sha256(second.directory + "/" + path), path)
        }
    }

    func testDecodedFramesFailsOnACorruptSegment() throws {
        let fixture = try HLSFixture.tsAES128(in: directory, seconds: 4)
        let segment = fixture.directory + "/v1/seg001.ts"
        var bytes = try fileBytes(segment)
        for index in stride(from: 64, to: bytes.count, by: 97) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        XCTAssertThrowsError(try HLSFixture.decodedFrames(playlist: fixture.directory + "/v1/index.m3u8")) { error in
            XCTAssertTrue(error is HLSFixtureError, "\(error)")
        }
    }

    func testRangeForms() async throws {
        server.serve(path: "/r", route: TestRoute(body: .bytes(Array(0..<100)), contentType: "application/x-test"))
        let open = try await fetch("/r", range: "bytes=90-")
        XCTAssertEqual(open.status, 206)
        XCTAssertEqual(open.body, Array(90..<100))
        XCTAssertEqual(open.header("Content-Range"), "bytes 90-99/100")
        XCTAssertEqual(open.header("Content-Type"), "application/x-test")
        let closed = try await fetch("/r", range: "bytes=10-19")
        XCTAssertEqual(closed.status, 206)
        XCTAssertEqual(closed.body, Array(10..<20))
        let pastEnd = try await fetch("/r", range: "bytes=95-200")
        XCTAssertEqual(pastEnd.header("Content-Range"), "bytes 95-99/100")
        XCTAssertEqual(pastEnd.body, Array(95..<100))
        let suffix = try await fetch("/r", range: "bytes=-3")
        XCTAssertEqual(suffix.body, [97, 98, 99])
        let backwards = try await fetch("/r", range: "bytes=20-10")
        XCTAssertEqual(backwards.status, 200)
        XCTAssertEqual(backwards.body.count, 100)
        let unsatisfiable = try await fetch("/r", range: "bytes=100-")
        XCTAssertEqual(unsatisfiable.status, 416)
        XCTAssertEqual(unsatisfiable.header("Content-Range"), "bytes */100")
        XCTAssertEqual(unsatisfiable.header("Content-Type"), "text/plain")
        server.serve(path: "/plain", body: [1, 2, 3])
        let plain = try await fetch("/plain")
        XCTAssertNil(plain.header("Content-Type"))
    }

    func testServeDirectoryServesLaterFilesAndStaysInside() async throws {
        try FileManager.default.createDirectory(atPath: directory + "/tree/a", withIntermediateDirectories: true)
        try Data("one".utf8).write(to: URL(fileURLWithPath: directory + "/tree/a/one.vtt"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: directory + "/secret.key"))
        server.serveDirectory(directory + "/tree", at: "/t/")
        let one = try await fetch("/t/a/one.vtt")
        XCTAssertEqual(one.body, Array("one".utf8))
        XCTAssertEqual(one.header("Content-Type"), "text/vtt")

        try Data("two".utf8).write(to: URL(fileURLWithPath: directory + "/tree/a/two.key"))
        let two = try await fetch("/t/a/two.key")
        XCTAssertEqual(two.status, 200)
        XCTAssertEqual(two.body, Array("two".utf8))
        XCTAssertEqual(two.header("Content-Type"), "application/octet-stream")
        for outside in ["/t/a/../../secret.key", "/t/a/%2E%2E/%2E%2E/secret.key", "/t/missing.ts"] {
            let response = try await fetch(outside)
            XCTAssertEqual(response.status, 404, outside)
        }
        XCTAssertEqual(server.requests(for: "/t/a/two.key").count, 1)

        // A served file's route can be scripted like any other.
        server.update(path: "/t/a/one.vtt") { $0.failTimes = 1 }
        let failed = try await fetch("/t/a/one.vtt")
        XCTAssertEqual(failed.status, 500)
        let again = try await fetch("/t/a/one.vtt")
        XCTAssertEqual(again.body, Array("one".utf8))
        XCTAssertEqual(server.requests(for: "/t/a/one.vtt").count, 3)
    }

    // MARK: - Helpers

    private struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    private func fetch(_ path: String, range: String? = nil) async throws -> Response {
        var request = URLRequest(url: URL(string: server.url(path))!)
        if let range { request.setValue(range, forHTTPHeaderField: "Range") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return Response(status: http.statusCode, headers: headers, body: Array(data))
    }

    private func playlist(_ path: String) async throws -> Playlist {
        let response = try await fetch(path)
        XCTAssertEqual(response.status, 200, path)
        return try Playlist.parse(response.body, baseURL: server.url(path))
    }

    private func mediaPlaylist(_ path: String) async throws -> MediaPlaylist {
        guard case .media(let media) = try await playlist(path) else {
            throw HLSFixtureError("\(path) is not a media playlist")
        }
        XCTAssertTrue(media.hasEndList, path)
        return media
    }

    /// The path under the fixture directory of a URL that `serveDirectory` serves.
    private func relativePath(_ url: String) -> String {
        let path = URL(string: url)!.path
        return path.split(separator: "/").dropFirst().joined(separator: "/")
    }

    private func timed<T>(_ what: String, _ body: () throws -> T) throws -> T {
        let start = ContinuousClock.now
        let result = try body()
        print("\(what): \(ContinuousClock.now - start)")
        return result
    }

    private func fileBytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func sha256(_ path: String) throws -> String {
        TestBody.bytes(try fileBytes(path)).sha256Hex
    }

    private func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    private func hexBytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
