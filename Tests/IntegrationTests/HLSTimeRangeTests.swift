import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Part of a stream, end to end: ffmpeg's streams served by the test server, a real daemon, the
/// command line; which segment files the server was asked for, what the package's playlists
/// list, and what ffmpeg plays of its export.
final class HLSTimeRangeTests: DaemonTestCase {
    /// Ten minutes in 2 s AES-128 TS segments, three variants, subtitles en and es in 4 s
    /// segments (issue 29's stream). Made once per test build (ffmpeg: about 30 s of CPU).
    private func longStream() throws -> HLSFixture {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let made = try HLSFixture.shared("ts-aes128-600s") { try HLSFixture.tsAES128(in: $0, seconds: 600) }
        http.serveDirectory(made.directory, at: "/long")
        return made
    }

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    private func exportDir(_ name: String) throws -> String {
        try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/" + name
    }

    /// The files under `prefix` the server was asked for, by name, sorted (segments are fetched
    /// several at once).
    private func requested(_ prefix: String, suffix: String) -> [String] {
        http.requests.filter { $0.path.hasPrefix(prefix) && $0.path.hasSuffix(suffix) }.map { String($0.path.dropFirst(prefix.count)) }.sorted()
    }

    private func names(_ range: ClosedRange<Int>, _ ext: String) -> [String] {
        range.map { String(format: "seg%03d.%@", $0, ext) }
    }

    /// The segment files a package playlist lists, in order.
    private func listed(_ playlist: String) throws -> [String] {
        try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    private func cli(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try daemon.runCLI(arguments)
    }

    func testAMinuteOfATenMinuteStreamFromTheCommandLine() async throws {
        let stream = try longStream()
        let url = http.url("/long/" + stream.masterPath)
        let variant = stream.variants[1]  // --quality medium

        // The plan sizes the minute before anything is fetched.
        let plan = try cli(["plan", url, "--start", "60", "--end", "120", "--json"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let planned = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(planned["start"] as? Double, 60)
        XCTAssertEqual(planned["end"] as? Double, 120)
        XCTAssertEqual(planned["duration"] as? Double, 600)
        let sizes = (planned["variants"] as? [[String: Any]] ?? []).compactMap { $0["estimatedBytes"] as? Int }
        XCTAssertEqual(sizes.count, 3)
        for (size, variant) in zip(sizes, stream.variants) {
            XCTAssertEqual(Double(size), Double(variant.averageBandwidth) * 60 / 8, accuracy: 1, "AVERAGE-BANDWIDTH x the minute's 60 s")
        }
        let table = try cli(["plan", url, "--start", "60", "--end", "120"])
        XCTAssertTrue(table.stdout.contains("time range 1:00-2:00 (1:00)"), table.stdout)
        XCTAssertEqual(http.requests.filter { $0.path.hasSuffix(".ts") }, [], "a plan fetches no segment")

        let add = try cli(["add", url, "--id", "clip", "--quality", "medium", "--subtitles", "en,es", "--start", "60", "--end", "120"])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("added clip") && add.stdout.contains("[1:00-2:00]"), add.stdout)
        let done = try await waitFor("clip", .completed, timeout: 120)
        XCTAssertEqual(done.hls?.start, 60)
        XCTAssertEqual(done.hls?.end, 120)

        // Segments 30 to 59 of the chosen variant (60 s to 120 s), nothing of the others, and
        // the subtitles' 4 s segments 15 to 29, each asked for once.
        XCTAssertEqual(requested("/long/v1/", suffix: ".ts"), names(30...59, "ts"))
        XCTAssertEqual(requested("/long/v0/", suffix: ".ts") + requested("/long/v2/", suffix: ".ts"), [])
        for language in ["en", "es"] {
            XCTAssertEqual(requested("/long/subs/\(language)/", suffix: ".vtt"), names(15...29, "vtt"), language)
        }
        XCTAssertEqual(done.filesTotal, 30 + 15 + 15)

        // The package lists exactly those, numbered as in the stream.
        let video = asset("clip") + "/video/index.m3u8"
        XCTAssertEqual(try listed(video), (30...59).map { String(format: "seg%05d.ts", $0) })
        XCTAssertTrue(try String(contentsOfFile: video, encoding: .utf8).contains("#EXT-X-MEDIA-SEQUENCE:30\n"))
        XCTAssertEqual(try listed(asset("clip") + "/subtitles/es/index.m3u8").count, 15)

        // It plays: ffprobe reads 60 s (one segment either way at most), and ffmpeg decodes
        // each of the minute's frames, the segments decrypted with their sequence-number IVs.
        let out = try exportDir("clip")
        _ = try await client.export(id: "clip", to: out)
        XCTAssertEqual(try HLSFixture.duration(of: out + "/master.m3u8"), 60, accuracy: Double(HLSFixture.segmentSeconds))
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), 60 * HLSFixture.frameRate)
        XCTAssertTrue(done.quality.hasPrefix("\(variant.width)x\(variant.height),"), done.quality)
        // A wrong IV garbles only a segment's first block, which ffmpeg skips over: each segment
        // decrypted by the export is the source's decrypted by openssl with its own sequence
        // number (v1's IV) as IV.
        let clear = try exportDir("clip-clear")
        _ = try await client.export(id: "clip", to: clear, decrypt: true)
        let key = try XCTUnwrap(stream.keyHex)
        for index in [30, 31, 59] {
            let source = stream.directory + String(format: "/v1/seg%03d.ts", index)
            let expected = clear + "/expected.ts"
            let openssl = try DaemonProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: ["aes-128-cbc", "-d", "-K", key, "-iv", String(format: "%032x", index), "-in", source, "-out", expected])
            XCTAssertEqual(openssl.status, 0, openssl.stderr)
            let exported = try Data(contentsOf: URL(fileURLWithPath: clear + String(format: "/video/seg%05d.ts", index)))
            XCTAssertEqual(exported, try Data(contentsOf: URL(fileURLWithPath: expected)), "segment \(index) with IV \(index)")
        }

        // The record shows the range, and a repair plans the same window.
        let shown = try cli(["show", "clip", "--json"])
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let hls = try XCTUnwrap(record["hls"] as? [String: Any])
        XCTAssertEqual(hls["start"] as? Double, 60)
        XCTAssertEqual(hls["end"] as? Double, 120)
        XCTAssertTrue(try cli(["show", "clip"]).stdout.contains("time range 1:00-2:00"))
        XCTAssertTrue(try cli(["ls"]).stdout.contains("[1:00-2:00]"))
        try FileManager.default.removeItem(atPath: asset("clip") + "/video/seg00045.ts")
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        let again = try await waitFor("clip", .completed, timeout: 60)
        XCTAssertEqual(again.hls?.start, 60)
        XCTAssertEqual(again.filesTotal, 60)
        XCTAssertEqual(requested("/long/v1/", suffix: ".ts"), (names(30...59, "ts") + ["seg045.ts"]).sorted(), "only the missing segment again")
    }

    func testTheLastTenSecondsAndTheEdges() async throws {
        let stream = try longStream()
        let url = http.url("/long/" + stream.masterPath)
        let cases: [(id: String, start: Double?, end: Double?, video: ClosedRange<Int>, subtitles: ClosedRange<Int>)] = [
            // From 590 s: the last five segments; subtitles 588 s to 600 s.
            ("last", 590, nil, 295...299, 147...149),
            // Inside one segment (60 s to 62 s): that segment whole.
            ("inside", 61, 61.5, 30...30, 15...15),
            // Ending exactly where a segment begins: the segment that begins at 62 s is not fetched.
            ("edge", 60, 62, 30...30, 15...15),
        ]
        for (id, start, end, video, subtitles) in cases {
            let requestsBefore = http.requests.count
            _ = try await client.addDownload(AddDownloadRequest(
                id: id, uri: url, hls: HLSOptions(quality: .low, subtitles: ["en"], start: start, end: end)))
            _ = try await waitFor(id, .completed, timeout: 60)
            // --quality low is v1, the lowest variant of at least 0.5 Mb/s.
            let asked = http.requests.dropFirst(requestsBefore)
            XCTAssertEqual(asked.filter { $0.path.hasSuffix(".ts") }.map(\.path).sorted(), names(video, "ts").map { "/long/v1/" + $0 }, id)
            XCTAssertEqual(asked.filter { $0.path.hasSuffix(".vtt") }.map(\.path).sorted(), names(subtitles, "vtt").map { "/long/subs/en/" + $0 }, id)
            let out = try exportDir(id)
            _ = try await client.export(id: id, to: out)
            XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), video.count * HLSFixture.segmentSeconds * HLSFixture.frameRate, id)
        }
    }

    func testBadRangesAreRefusedAndAnEndPastTheStreamIsClamped() async throws {
        let stream = try longStream()
        let url = http.url("/long/" + stream.masterPath)
        for (arguments, message) in [
            (["--start=-1"], "hls.start -1 is not a time in the stream"),
            (["--start", "nan"], "hls.start nan"),
            (["--end", "inf"], "hls.end inf"),
            (["--end", "1e308"], "hls.end 1e+308"),
            (["--start", "120", "--end", "60"], "hls.end 60 must be after hls.start 120"),
        ] {
            let add = try cli(["add", url] + arguments)
            XCTAssertNotEqual(add.status, 0, "\(arguments)")
            XCTAssertTrue(add.stderr.contains(message), "\(arguments): \(add.stderr)")
        }
        let stored = try await client.listDownloads().total
        XCTAssertEqual(stored, 0, "nothing stored")

        // Known only once the playlist is read: the plan answers at once, the download fails.
        let plan = try cli(["plan", url, "--start", "600"])
        XCTAssertNotEqual(plan.status, 0)
        XCTAssertTrue(plan.stderr.contains("hls.start 600 is at or past the end of the stream, which lasts 600 s"), plan.stderr)
        _ = try await client.addDownload(AddDownloadRequest(id: "late", uri: url, hls: HLSOptions(start: 600)))
        let failed = try await waitFor("late", .failed)
        XCTAssertEqual(failed.error?.kind, .validation)
        XCTAssertTrue(failed.error?.message.contains("hls.start 600 is at or past the end of the stream, which lasts 600 s") ?? false,
                      "\(String(describing: failed.error))")

        let clamped = try cli(["plan", url, "--start", "596", "--end", "700"])
        XCTAssertTrue(clamped.stdout.contains("time range 9:56-10:00"), clamped.stdout)
        XCTAssertTrue(clamped.stdout.contains("warning: hls.end 700 is past the end of the stream, which lasts 600 s: the range ends there"),
                      clamped.stdout)
        _ = try await client.addDownload(AddDownloadRequest(id: "tail", uri: url, hls: HLSOptions(quality: .low, start: 596, end: 700)))
        let tail = try await waitFor("tail", .completed)
        XCTAssertEqual(tail.hls?.end, 600, "the record says what the package holds")
        XCTAssertEqual(tail.filesTotal, 2)
        XCTAssertTrue(daemon.log().contains("hls.end 700 is past the end of the stream"), "the daemon's log says it")
    }

    /// fMP4 with its init section and a single file of byte ranges, cut the same way.
    func testFragmentedMP4AndByteRangeStreams() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let fmp4 = try HLSFixture.shared("fmp4") { try HLSFixture.fmp4(in: $0) }
        let ranges = try HLSFixture.shared("byte-ranges") { try HLSFixture.singleFileByteRange(in: $0) }
        http.serveDirectory(fmp4.directory, at: "/fmp4")
        http.serveDirectory(ranges.directory, at: "/ranges")
        let window = HLSOptions(start: 4, end: 8)

        _ = try await client.addDownload(AddDownloadRequest(id: "f", uri: http.url("/fmp4/" + fmp4.masterPath), hls: window))
        let f = try await waitFor("f", .completed)
        XCTAssertEqual(f.filesTotal, 3, "the init section and two segments")
        XCTAssertEqual(requested("/fmp4/v0/", suffix: ".m4s"), ["seg002.m4s", "seg003.m4s"])
        XCTAssertEqual(requested("/fmp4/v0/", suffix: ".mp4"), ["init.mp4"])
        let fOut = try exportDir("f")
        _ = try await client.export(id: "f", to: fOut)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: fOut + "/master.m3u8"), 4 * HLSFixture.frameRate)

        _ = try await client.addDownload(AddDownloadRequest(id: "r", uri: http.url("/ranges/" + ranges.masterPath), hls: window))
        let r = try await waitFor("r", .completed)
        XCTAssertEqual(r.filesTotal, 2)
        let plan = try await client.manifestInfo(uri: http.url("/ranges/" + ranges.masterPath), start: 4, end: 8)
        XCTAssertTrue(plan.variants[0].sizeIsExact)
        XCTAssertEqual(plan.variants[0].estimatedBytes, r.totalBytes, "the plan's exact size is what the window fetched")
        let asked = http.requests.filter { $0.path == "/ranges/v0/media.ts" }.compactMap { $0.header("Range") }
        XCTAssertEqual(asked.count, 2, "two closed ranges of the one file: \(asked)")
        let rOut = try exportDir("r")
        _ = try await client.export(id: "r", to: rOut)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: rOut + "/master.m3u8"), 4 * HLSFixture.frameRate)
    }

    /// A daemon before time ranges ignores the fields and would fetch the whole stream: the
    /// client and the command line refuse to ask it.
    func testARangeIsNotSentToADaemonWithoutTimeRanges() async throws {
        let older = try OlderDaemonProxy(
            upstream: daemon.socketPath, socketPath: (daemon.socketPath as NSString).deletingLastPathComponent + "/older.sock",
            hiddenFeatures: ["time-range"], unknownOps: { _ in false })
        defer { older.stop() }
        let oldClient = try await StashClient.connect(socketPath: older.socketPath)
        let url = http.url("/x.m3u8")
        let refused = await assertFails(.unimplemented) {
            try await oldClient.addDownload(AddDownloadRequest(uri: url, hls: HLSOptions(start: 60)))
        }
        XCTAssertTrue(refused?.message.contains("time-range") ?? false, "\(String(describing: refused))")
        await assertFails(.unimplemented) { try await oldClient.manifestInfo(uri: url, end: 30) }
        await oldClient.close()
        let cli = try DaemonProcess.run(
            executable: DaemonProcess.executableURL(named: "stash"), arguments: ["add", url, "--start", "60", "--socket", older.socketPath])
        XCTAssertNotEqual(cli.status, 0)
        XCTAssertTrue(cli.stderr.contains("does not support time ranges"), cli.stderr)
        let added = try await client.listDownloads().total
        XCTAssertEqual(added, 0, "nothing added")
    }
}
