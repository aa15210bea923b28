import Foundation
import StashClient
import StashTestSupport
import XCTest

/// DASH presentations made by ffmpeg's dash muxer, served by the test server, planned and
/// downloaded by a real daemon, and played from the download's folder by ffmpeg.
final class DASHDownloadTests: DaemonTestCase {
    private func serve(timeline: Bool) throws -> String {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-dash")
        let fixture = try DASHFixture.make(in: folder + "/dash", timeline: timeline)
        http.serveDirectory(fixture.directory, at: "/dash")
        return http.url("/dash/" + fixture.manifestPath)
    }

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// Serves the fixture's MPD changed by `edit` at `/dash/NAME` (beside its segments); returns its URL.
    private func serveEdited(_ name: String, timeline: Bool = true, _ edit: (String) -> String) throws -> String {
        _ = try serve(timeline: timeline)
        guard case .file(let path, _) = try XCTUnwrap(http.route("/dash/manifest.mpd")).body else {
            throw HLSFixtureError("the fixture's MPD is not served from its file")
        }
        http.serve(path: "/dash/" + name, body: Array(edit(try String(contentsOfFile: path, encoding: .utf8)).utf8))
        return http.url("/dash/" + name)
    }

    /// The representations whose segments the server was asked for (`chunk-stream<id>-`).
    private func requestedStreams() -> Set<String> {
        Set(http.requests.compactMap { request -> String? in
            guard let name = request.path.split(separator: "/").last, name.hasPrefix("chunk-stream") else { return nil }
            return String(name.dropFirst("chunk-stream".count).prefix { $0 != "-" })
        })
    }

    func testPlanListsTheRepresentationsAndAudioTracks() async throws {
        let url = try serve(timeline: true)
        let info = try await client.manifestInfo(uri: url)
        XCTAssertEqual(info.variants.map(\.height), [144, 240])
        XCTAssertEqual(info.variants.map(\.bandwidth), [200_000, 600_000])
        XCTAssertEqual(info.variants.map(\.estimatedBytes), [150_000, 450_000])
        XCTAssertEqual(info.audio.map(\.language), ["en", "fr"])
        XCTAssertEqual(info.duration, Double(DASHFixture.seconds))
        let hello = try await client.hello()
        XCTAssertTrue(hello.features.contains("dash"))
    }

    func testAddTakesTheChosenRepresentationAndItsFolderPlaysOffline() async throws {
        let url = try serve(timeline: true)
        // low: the lowest representation reaching 500 kb/s, the 426x240 one.
        let added = try await client.addDownload(AddDownloadRequest(id: "movie", uri: url, hls: HLSOptions(quality: .low))).download
        XCTAssertEqual(added.state, .queued)
        let done = try await waitFor("movie", .completed)
        XCTAssertTrue(done.quality.hasPrefix("426x240,"), done.quality)
        let segments = DASHFixture.segmentsPerRepresentation
        XCTAssertEqual(done.filesTotal, 2 * (1 + segments), "video and the main (first) audio, each an init and its segments")
        XCTAssertEqual(done.filesDone, done.filesTotal)
        XCTAssertEqual(requestedStreams(), ["1", "2"], "only the chosen representations are fetched")
        let manifest = try String(contentsOfFile: asset("movie") + "/manifest.mpd", encoding: .utf8)
        XCTAssertTrue(manifest.contains("video/seg$Number%05d$.m4s"), manifest)
        XCTAssertFalse(manifest.contains("http"), "the local MPD names local files only:\n\(manifest)")
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("movie") + "/manifest.mpd"), DASHFixture.frameCount)
        try XCTSkipUnless(DASHFixture.isGStreamerAvailable, "GStreamer's dashdemux is needed (make deps installs it)")
        XCTAssertEqual(try DASHFixture.gstreamerFrames(manifest: asset("movie") + "/manifest.mpd"), DASHFixture.frameCount)
    }

    /// A CDN's error page served with 200 in place of a segment is not kept as video: DASH
    /// segments are checked for their container's signature as HLS segments are.
    func testAnHTMLPageInPlaceOfASegmentFailsTheDownloadNamingIt() async throws {
        let url = try serve(timeline: true)
        let page = "<!DOCTYPE html><html><body>Access denied</body></html>"
        http.serve(path: "/dash/chunk-stream1-00002.m4s", route: TestRoute(body: .bytes(Array(page.utf8)), contentType: "text/html"))
        _ = try await client.addDownload(AddDownloadRequest(id: "page", uri: url, hls: HLSOptions(quality: .low)))
        let failed = try await waitFor("page", .failed)
        XCTAssertEqual(failed.error?.kind, .validation)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("video/seg00001.m4s") && message.contains("fMP4 segment"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: asset("page") + "/video/seg00001.m4s"), "nothing of the page is kept")
    }

    func testTemplateWithoutTimelineAndAnotherAudioLanguage() async throws {
        let url = try serve(timeline: false)
        _ = try await client.addDownload(AddDownloadRequest(id: "small", uri: url, hls: HLSOptions(maxHeight: 144, audio: ["fr"])))
        let done = try await waitFor("small", .completed)
        XCTAssertTrue(done.quality.hasPrefix("256x144,"), done.quality)
        XCTAssertEqual(requestedStreams(), ["0", "3"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: asset("small") + "/audio/fr/seg00002.m4s"))
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("small") + "/manifest.mpd"), DASHFixture.frameCount)
        try XCTSkipUnless(DASHFixture.isGStreamerAvailable, "GStreamer's dashdemux is needed (make deps installs it)")
        XCTAssertEqual(try DASHFixture.gstreamerFrames(manifest: asset("small") + "/manifest.mpd"), DASHFixture.frameCount)
    }

    func testAnMPDURLWithoutOptionsIsAStream() async throws {
        let url = try serve(timeline: true)
        _ = try await client.addDownload(AddDownloadRequest(id: "plain", uri: url))
        let done = try await waitFor("plain", .completed)
        XCTAssertTrue(done.quality.hasPrefix("426x240,"), "auto takes the highest: \(done.quality)")
        XCTAssertEqual(done.filesTotal, 2 * (1 + DASHFixture.segmentsPerRepresentation))
    }

    /// A URL that does not say it is an MPD, answered with Content-Type application/dash+xml:
    /// the transfer stops and the MPD is read as for an .mpd URL.
    func testContentTypeMakesADownloadDASH() async throws {
        let url = try serve(timeline: true)
        let mpd = try XCTUnwrap(http.route("/dash/manifest.mpd"))
        http.serve(path: "/dash/watch", route: TestRoute(body: mpd.body, contentType: "application/dash+xml"))
        XCTAssertTrue(url.hasSuffix("/dash/manifest.mpd"))
        _ = try await client.addDownload(AddDownloadRequest(id: "typed", uri: http.url("/dash/watch")))
        let done = try await waitFor("typed", .completed)
        XCTAssertEqual(done.filesTotal, 2 * (1 + DASHFixture.segmentsPerRepresentation))
        XCTAssertTrue(FileManager.default.fileExists(atPath: asset("typed") + "/manifest.mpd"))
    }

    func testCommandLinePlanAndAdd() async throws {
        let url = try serve(timeline: false)
        let table = try daemon.runCLI(["plan", url])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("426x240") && table.stdout.contains("256x144"), table.stdout)
        let add = try daemon.runCLI(["add", url, "--id", "cli", "--quality", "low", "--audio", "fr", "--wait", "--json"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let last = try XCTUnwrap(add.stdout.split(separator: "\n").last)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        XCTAssertEqual(record["state"] as? String, "COMPLETED")
        XCTAssertEqual(record["segmentsTotal"] as? Int, 2 * (1 + DASHFixture.segmentsPerRepresentation))
        XCTAssertEqual(record["segmentsDone"] as? Int, record["segmentsTotal"] as? Int)
        XCTAssertTrue((record["quality"] as? String)?.hasPrefix("426x240") ?? false, "\(record)")
        XCTAssertEqual(requestedStreams(), ["1", "3"])
        // The export names what the folder holds at its top: a DASH folder has no master playlist.
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/cli"
        let exported = try daemon.runCLI(["export", "cli", out])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stdout.hasPrefix("exported cli to \(out)/manifest.mpd: "), exported.stdout)
    }

    /// One file per representation: byte ranges from a SegmentList's mediaRange (exact sizes),
    /// and from the sidx box a SegmentBase's indexRange names (fetched with a Range request).
    func testOneFileRepresentationsBySegmentListAndBySidx() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let fixture = try DASHFixture.singleFile(in: try DaemonProcess.makeTemporaryDirectory(prefix: "stash-dash") + "/one")
        http.serveDirectory(fixture.directory, at: "/one")
        let info = try await client.manifestInfo(uri: http.url("/one/manifest.mpd"))
        XCTAssertEqual(info.variants.count, 1)
        for (id, name) in [("list", "manifest.mpd"), ("base", "segment-base.mpd")] {
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/one/" + name)))
            let done = try await waitFor(id, .completed)
            XCTAssertEqual(done.filesTotal, 1 + DASHFixture.segmentsPerRepresentation, id)
            XCTAssertEqual(done.downloadedBytes, done.totalBytes, "\(id): the sizes are exact")
            XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset(id) + "/manifest.mpd"), DASHFixture.frameCount, id)
        }
        let ranges = http.requests(for: "/one/manifest-stream0.mp4").compactMap { $0.headers.first { $0.name.lowercased() == "range" }?.value }
        XCTAssertEqual(ranges.count, 2 * (1 + DASHFixture.segmentsPerRepresentation) + 1, "every piece a range, and the sidx once: \(ranges)")
    }

    func testKilledMidDownloadRestartFetchesOnlyMissingSegments() async throws {
        let url = try serve(timeline: true)
        // About 5 s at this rate for the 426x240 representation and its audio.
        _ = try await client.setConfig([(key: "rate-limit", value: "100000")])
        _ = try await client.addDownload(AddDownloadRequest(id: "killed", uri: url, hls: HLSOptions(segmentConcurrency: 2)))
        _ = try await waitUntil("killed") { $0.filesDone >= 3 }
        daemon.kill(signal: SIGKILL)
        _ = daemon.waitForExit()
        let before = Dictionary(grouping: http.requests.filter { $0.path.hasSuffix(".m4s") }, by: \.path).mapValues(\.count)
        try await daemon.restart()
        try await reconnect()
        _ = try await client.setConfig([(key: "rate-limit", value: "0")])
        let done = try await waitFor("killed", .completed)
        let after = Dictionary(grouping: http.requests.filter { $0.path.hasSuffix(".m4s") }, by: \.path).mapValues(\.count)
        let fetchedAgain = before.keys.filter { (after[$0] ?? 0) > before[$0]! }
        XCTAssertLessThanOrEqual(fetchedAgain.count, 2, "only segments in flight at the kill are fetched again: \(fetchedAgain.sorted())")
        XCTAssertGreaterThanOrEqual(before.count - fetchedAgain.count, 3, "complete segments are not fetched again")
        XCTAssertEqual(done.filesDone, done.filesTotal)
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("killed") + "/manifest.mpd"), DASHFixture.frameCount)
    }

    func testVerifyFindsAndRepairsAMissingSegmentAndTheManifest() async throws {
        let url = try serve(timeline: true)
        _ = try await client.addDownload(AddDownloadRequest(id: "v", uri: url))
        _ = try await waitFor("v", .completed)
        try FileManager.default.removeItem(atPath: asset("v") + "/video/seg00001.m4s")
        try FileManager.default.removeItem(atPath: asset("v") + "/manifest.mpd")
        let report = try await client.verify()
        XCTAssertEqual(Set(report.findings.filter { $0.kind == .missingFile }.map(\.path)),
                       [asset("v") + "/video/seg00001.m4s", asset("v") + "/manifest.mpd"])
        let segmentsBefore = http.requests.filter { $0.path.hasSuffix(".m4s") }.count
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        _ = try await waitFor("v", .completed)
        XCTAssertEqual(http.requests.filter { $0.path.hasSuffix(".m4s") }.count - segmentsBefore, 1, "only the missing segment is fetched again")
        let after = try await client.verify()
        XCTAssertTrue(after.findings.isEmpty, "\(after.findings)")
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("v") + "/manifest.mpd"), DASHFixture.frameCount)
    }

    func testExportToAFolderPlaysOffline() async throws {
        let url = try serve(timeline: false)
        _ = try await client.addDownload(AddDownloadRequest(id: "e", uri: url, hls: HLSOptions(audio: ["en", "fr"])))
        _ = try await waitFor("e", .completed)
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/e"
        let exported = try await client.export(id: "e", to: out)
        XCTAssertEqual(exported.files, 1 + 3 * (1 + DASHFixture.segmentsPerRepresentation), "the manifest, video and two audio tracks")
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: out + "/manifest.mpd"), DASHFixture.frameCount)
        // One file: the video and both audio tracks, remuxed, with their languages.
        let file = try await client.export(id: "e", toFile: out + ".mkv")
        XCTAssertEqual(file.format, .mkv)
        let summary = try MediaProbe.summary(of: out + ".mkv")
        XCTAssertEqual(summary.streams("video").count, 1)
        XCTAssertEqual(summary.streams("audio").map(\.language), ["eng", "fre"])
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + ".mkv"), DASHFixture.frameCount)
        // The HLS-only operations answer for what they are, not with a missing master.m3u8.
        let subtitles = try await client.subtitles(id: "e")
        XCTAssertEqual(subtitles, [])
        let refused = await assertFails(.failedPrecondition) { try await self.client.addSubtitles(id: "e", languages: ["de"]) }
        XCTAssertTrue(refused?.message.contains("DASH") ?? false, "\(String(describing: refused))")
    }

    /// --start/--end: the segments that overlap the range, each track by its own timeline; an
    /// end past the presentation is its end, in the record too.
    func testTimeRangeKeepsTheOverlappingSegments() async throws {
        let url = try serve(timeline: true)
        _ = try await client.addDownload(AddDownloadRequest(id: "clip", uri: url, hls: HLSOptions(start: 2.5, end: 100)))
        let done = try await waitFor("clip", .completed)
        XCTAssertEqual(done.hls?.end, Double(DASHFixture.seconds))
        XCTAssertEqual(done.hls?.start, 2.5)
        let video = http.requests.map(\.path).filter { $0.contains("chunk-stream1-") }.sorted()
        XCTAssertEqual(video, ["/dash/chunk-stream1-00002.m4s", "/dash/chunk-stream1-00003.m4s"])
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("clip") + "/manifest.mpd"), 2 * 2 * DASHFixture.frameRate)
    }

    /// A text adaptation set that is one WebVTT file (as Shaka packager writes them), kept with
    /// --subtitles and named by the local MPD.
    func testWebVTTTextTrack() async throws {
        let text = """
            <AdaptationSet id="9" contentType="text" mimeType="text/vtt" lang="de">
              <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
              <Representation id="subs-de" bandwidth="256"><BaseURL>subs/de.vtt</BaseURL></Representation>
            </AdaptationSet>
            </Period>
            """
        _ = try serveEdited("with-text.mpd") { $0.replacingOccurrences(of: "</Period>", with: text) }
        let vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nHallo\n"
        http.serve(path: "/dash/subs/de.vtt", body: Array(vtt.utf8))
        let info = try await client.manifestInfo(uri: http.url("/dash/with-text.mpd"))
        XCTAssertEqual(info.subtitles.map(\.language), ["de"])
        _ = try await client.addDownload(AddDownloadRequest(id: "subs", uri: http.url("/dash/with-text.mpd"), hls: HLSOptions(subtitles: ["de"])))
        let done = try await waitFor("subs", .completed)
        XCTAssertTrue(done.hasSubtitles)
        XCTAssertEqual(try String(contentsOfFile: asset("subs") + "/subtitles/de/seg00000.vtt", encoding: .utf8), vtt)
        let manifest = try String(contentsOfFile: asset("subs") + "/manifest.mpd", encoding: .utf8)
        XCTAssertTrue(manifest.contains("<BaseURL>subtitles/de/seg00000.vtt</BaseURL>"), manifest)
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: asset("subs") + "/manifest.mpd"), DASHFixture.frameCount)
        // With its text track (playbin's own overlay: a fake text sink costs GStreamer 5 s).
        if DASHFixture.isGStreamerAvailable {
            XCTAssertEqual(try DASHFixture.gstreamerFrames(manifest: asset("subs") + "/manifest.mpd"), DASHFixture.frameCount)
        }
        let file = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/subs.mkv"
        _ = try await client.export(id: "subs", toFile: file)
        XCTAssertEqual(try MediaProbe.summary(of: file).streams("subtitle").map(\.language), ["ger"])
    }

    /// Content for a CDM is refused by the name of its DRM systems; ClearKey content without DRM
    /// parameters says it needs them (DASHLicenseTests has it with them). Either way nothing is
    /// fetched but the MPD.
    func testEncryptedRepresentationsAreRefusedByName() async throws {
        let widevine = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc"/>
            <ContentProtection schemeIdUri="urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED"/>
            <ContentProtection schemeIdUri="urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95"/>
            <Representation id="0"
            """
        let cdm = try serveEdited("widevine.mpd") { $0.replacingOccurrences(of: "<Representation id=\"0\"", with: widevine) }
        _ = try await client.addDownload(AddDownloadRequest(id: "wv", uri: cdm))
        let failed = try await waitFor("wv", .failed)
        XCTAssertTrue(failed.error?.message.contains("protected by Widevine and PlayReady, which only a CDM can decrypt") ?? false, "\(String(describing: failed.error))")
        let clearKey = """
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"/>
            <Representation id="0"
            """
        let keyed = try serveEdited("clearkey.mpd") { $0.replacingOccurrences(of: "<Representation id=\"0\"", with: clearKey) }
        _ = try await client.addDownload(AddDownloadRequest(id: "ck", uri: keyed))
        let refused = try await waitFor("ck", .failed)
        XCTAssertTrue(refused.error?.message.contains("add the download with DRM parameters") ?? false, "\(String(describing: refused.error))")
        XCTAssertTrue(requestedStreams().isEmpty)
    }

    /// Two periods cut from one stream: each period's representation in its own folder, and the
    /// local MPD keeps both periods.
    func testPeriodsInARow() async throws {
        let url = try serveEdited("periods.mpd", timeline: false) { text in
            let period = { (id: String, start: Int, seconds: Int, first: Int) in
                """
                <Period id="\(id)" start="PT\(start)S" duration="PT\(seconds)S"><AdaptationSet contentType="video" mimeType="video/mp4">
                <Representation id="0" bandwidth="200000" width="256" height="144" codecs="avc1.42c00d">
                <SegmentTemplate timescale="1000" duration="2000" startNumber="\(first)" presentationTimeOffset="\(start * 1000)"
                 initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s"/>
                </Representation></AdaptationSet></Period>
                """
            }
            let head = text[..<text.range(of: "<Period")!.lowerBound]
            return head + period("a", 0, 4, 1) + period("b", 4, 2, 3) + "</MPD>"
        }
        _ = try await client.addDownload(AddDownloadRequest(id: "two", uri: url))
        let done = try await waitFor("two", .completed)
        XCTAssertEqual(done.filesTotal, 2 + 1 + 2)
        for path in ["period0/video/init.m4s", "period0/video/seg00001.m4s", "period1/video/init.m4s", "period1/video/seg00000.m4s"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: asset("two") + "/" + path), path)
        }
        let manifest = try String(contentsOfFile: asset("two") + "/manifest.mpd", encoding: .utf8)
        XCTAssertEqual(manifest.components(separatedBy: "<Period ").count, 3, manifest)
        XCTAssertEqual(requestedStreams(), ["0"])
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/two.mp4"
        let refused = await assertFails(.failedPrecondition) { try await self.client.export(id: "two", toFile: out) }
        XCTAssertTrue(refused?.message.contains("several periods") ?? false, "\(String(describing: refused))")
    }
}
