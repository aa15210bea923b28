import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Issue 31's round for each kind of DASH stream beyond SegmentTemplate (DASHDownloadTests has
/// those): one file per representation cut by its `sidx` (SegmentBase), several periods, and
/// ClearKey CENC. Each is planned as its MPD says, `--quality low` takes the 426x240
/// representation, its export decodes to the source's frames, a kill -9 mid-way resumes without
/// fetching complete segments again, and a removed segment is found by verify and fetched alone
/// by `--repair`.
final class DASHStreamKindTests: DaemonTestCase {
    private static let keyID: [UInt8] = Array(0x40..<0x50)
    private static let key: [UInt8] = [0x19, 0x8e, 0x27, 0xd0, 0x63, 0xb4, 0x0a, 0xf5, 0x3c, 0x71, 0xe8, 0x2d, 0x96, 0x4f, 0xa1, 0x5b]

    /// One stream kind, served: the MPD's URL and text, DRM parameters when it needs them, the
    /// segment removed in the verify step (a path under the download's folder), and how the
    /// export is checked.
    private struct Kind {
        var name: String
        var url: String
        var mpd: String
        var drm: DRMParams?
        var removed: String
        /// Requests (path and Range, as `mediaRequests` names them) that serve more than one
        /// file of the download, and how many.
        var sharedRequests: [String: Int] = [:]
        var exportFrames: (String) throws -> Int
    }

    private var licenses: LicenseServer?

    override func tearDown() async throws {
        licenses?.stop()
        try await super.tearDown()
    }

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    private func folder() throws -> String {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        return try DaemonProcess.makeTemporaryDirectory(prefix: "stash-dash-kind")
    }

    func testSegmentBaseBySidx() async throws {
        let fixture = try DASHFixture.singleFile(in: try folder() + "/one", twoRepresentations: true)
        http.serveDirectory(fixture.directory, at: "/one")
        let mpd = try String(contentsOfFile: fixture.directory + "/segment-base.mpd", encoding: .utf8)
        XCTAssertTrue(mpd.contains("<SegmentBase") && !mpd.contains("<SegmentList"), mpd)
        // The plan reads each representation's index: its size is exact, not an estimate.
        let info = try await client.manifestInfo(uri: http.url("/one/segment-base.mpd"))
        XCTAssertEqual(info.variants.map(\.sizeIsExact), [true, true], "a SegmentBase's sidx gives its size")
        let planned = try XCTUnwrap(info.variants.first { $0.height == 240 }).estimatedBytes
        try await checkRound(Kind(
            name: "sidx", url: http.url("/one/segment-base.mpd"), mpd: mpd, removed: "video/seg00001.mp4",
            exportFrames: { try DASHFixture.decodedFrames(manifest: $0 + "/manifest.mpd") }))
        let video = asset("sidx") + "/video"
        let held = try FileManager.default.contentsOfDirectory(atPath: video).reduce(Int64(0)) { sum, name in
            sum + ((try FileManager.default.attributesOfItem(atPath: video + "/" + name)[.size] as? Int64) ?? 0)
        }
        XCTAssertEqual(held, planned, "the plan's size is what the 426x240 representation's pieces hold")
    }

    /// Two periods cut from one presentation, each with both video representations: the export
    /// (to a folder: one file does not join periods) decodes period by period, since ffmpeg's
    /// DASH demuxer plays one period of an MPD.
    func testPeriodsInARow() async throws {
        let fixture = try DASHFixture.make(in: try folder() + "/dash", timeline: false)
        http.serveDirectory(fixture.directory, at: "/dash")
        let text = try String(contentsOfFile: fixture.directory + "/manifest.mpd", encoding: .utf8)
        let period = { (id: String, start: Int, seconds: Int, first: Int) in
            """
            <Period id="\(id)" start="PT\(start)S" duration="PT\(seconds)S"><AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="1000" duration="2000" startNumber="\(first)" presentationTimeOffset="\(start * 1000)"
             initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s"/>
            <Representation id="0" bandwidth="200000" width="256" height="144" codecs="avc1.42c00d"/>
            <Representation id="1" bandwidth="600000" width="426" height="240" codecs="avc1.42c015"/>
            </AdaptationSet></Period>
            """
        }
        let mpd = text[..<text.range(of: "<Period")!.lowerBound] + period("a", 0, 4, 1) + period("b", 4, 2, 3) + "</MPD>"
        http.serve(path: "/dash/periods.mpd", body: Array(mpd.utf8))
        try await checkRound(Kind(
            name: "periods", url: http.url("/dash/periods.mpd"), mpd: mpd, removed: "period1/video/seg00000.m4s",
            // Both periods' initializations are one URL.
            sharedRequests: ["/dash/init-stream1.m4s ": 2],
            exportFrames: { out in
                let frames = try [("period0", 2), ("period1", 1)].map { name, segments in
                    try Self.countFrames(initialization: out + "/\(name)/video/init.m4s",
                                         segments: (0..<segments).map { out + "/\(name)/video/seg0000\($0).m4s" })
                }
                XCTAssertEqual(frames, [4 * DASHFixture.frameRate, 2 * DASHFixture.frameRate], "each period's frames")
                return frames.reduce(0, +)
            }))
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/periods.mkv"
        let refused = await assertFails(.failedPrecondition) { try await self.client.export(id: "periods", toFile: out) }
        XCTAssertTrue(refused?.message.contains("several periods") ?? false, "\(String(describing: refused))")
    }

    func testClearKeyCENC() async throws {
        let licenses = try LicenseServer.start()
        self.licenses = licenses
        licenses.addKey(kid: Self.keyID, key: Self.key)
        let directory = try folder() + "/cenc"
        let fixture = try DASHFixture.encrypted(in: directory, key: Self.key, keyID: Self.keyID)
        let plain = try String(contentsOfFile: directory + "/" + fixture.manifestPath, encoding: .utf8)
        let mpd = plain.replacingOccurrences(
            of: "(<AdaptationSet[^>]*>)", with: "$1" + DASHFixture.contentProtection(keyID: Self.keyID), options: .regularExpression)
        http.serveDirectory(directory, at: "/cenc")
        http.serve(path: "/cenc/protected.mpd", body: Array(mpd.utf8))
        try await checkRound(Kind(
            name: "cenc", url: http.url("/cenc/protected.mpd"), mpd: mpd, drm: DRMParams(licenseServer: licenses.licenseURL),
            removed: "video/seg00001.m4s",
            exportFrames: { try DASHFixture.decodedFrames(manifest: $0 + "/manifest.mpd") }))
        XCTAssertThrowsError(try DASHFixture.decodedFrames(manifest: asset("cenc") + "/manifest.mpd"), "the kept segments stay encrypted")
    }

    /// The round of the test list for one kind of stream.
    private func checkRound(_ kind: Kind) async throws {
        // Plan: the video representations of the MPD's first period, as it writes them.
        let info = try await client.manifestInfo(uri: kind.url)
        let firstPeriod = String(kind.mpd[..<(kind.mpd.range(of: "</Period>")?.lowerBound ?? kind.mpd.endIndex)])
        let video = Self.videoRepresentations(in: firstPeriod)
        XCTAssertEqual(video.count, 2, "\(kind.name): the MPD's video representations: \(firstPeriod)")
        XCTAssertEqual(info.variants.map(\.height), video.map(\.height), kind.name)
        XCTAssertEqual(info.variants.map { $0.bandwidth.map(Int.init) }, video.map(\.bandwidth), kind.name)
        XCTAssertEqual(info.duration, Double(DASHFixture.seconds), kind.name)
        XCTAssertEqual(info.variants.map { !$0.encryption.isEmpty }, info.variants.map { _ in kind.drm != nil }, kind.name)

        // add --quality low: the lowest reaching 500 kb/s, the 426x240 one, and nothing of the other.
        // (The plan read every representation's index; the add reads only the chosen one's.)
        let planned = http.requests.count
        _ = try await client.addDownload(AddDownloadRequest(id: kind.name, uri: kind.url, hls: HLSOptions(quality: .low), drm: kind.drm))
        let done = try await waitFor(kind.name, .completed)
        XCTAssertTrue(done.quality.hasPrefix("426x240,"), "\(kind.name): \(done.quality)")
        XCTAssertEqual(done.filesDone, done.filesTotal, kind.name)
        XCTAssertFalse(
            http.requests.dropFirst(planned).contains { $0.path.contains("stream0") }, "\(kind.name): the 256x144 representation is not fetched")

        // The export decodes to the source's frames (decrypted, for CENC).
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/" + kind.name
        let exported = try await client.export(id: kind.name, to: out, decrypt: kind.drm != nil)
        XCTAssertEqual(exported.files, Int(done.filesTotal) + 1, "\(kind.name): the segments and the MPD")
        XCTAssertEqual(try kind.exportFrames(out), DASHFixture.frameCount, kind.name)

        // GStreamer plays the download's folder offline, as a media app would.
        if DASHFixture.isGStreamerAvailable {
            let requests = http.requests.count
            let played = kind.drm == nil ? asset(kind.name) + "/manifest.mpd" : out + "/manifest.mpd"
            XCTAssertEqual(try DASHFixture.gstreamerFrames(manifest: played), DASHFixture.frameCount, "\(kind.name): GStreamer")
            XCTAssertEqual(http.requests.count, requests, "\(kind.name): nothing is fetched to play it")
        }

        // verify finds a removed segment; --repair fetches it and nothing else.
        let removed = asset(kind.name) + "/" + kind.removed
        let bytes = try Data(contentsOf: URL(fileURLWithPath: removed))
        try FileManager.default.removeItem(atPath: removed)
        let report = try await client.verify()
        XCTAssertEqual(report.findings.map(\.path), [removed], kind.name)
        XCTAssertEqual(report.findings.map(\.kind), [.missingFile], kind.name)
        let before = mediaRequests()
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1, kind.name)
        _ = try await waitUntil(kind.name) { $0.state == .completed && $0.filesDone == $0.filesTotal }
        XCTAssertEqual(mediaRequests().count - before.count, 1, "\(kind.name): only the removed segment is fetched: \(mediaRequests().dropFirst(before.count))")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: removed)), bytes, kind.name)
        let clean = try await client.verify()
        XCTAssertEqual(clean.findings, [], kind.name)

        // kill -9 mid-way: the restart fetches again only what was in flight.
        let killed = kind.name + "-killed"
        // About 4.5 s for the 426x240 representation at this rate.
        _ = try await client.setConfig([(key: "rate-limit", value: "100000")])
        let first = mediaRequests().count
        _ = try await client.addDownload(AddDownloadRequest(
            id: killed, uri: kind.url, hls: HLSOptions(quality: .low, segmentConcurrency: 2), drm: kind.drm, force: true))
        let midway = try await waitUntil(killed) { $0.filesDone >= 2 }
        XCTAssertLessThan(midway.filesDone, midway.filesTotal, "\(kind.name): the kill comes mid-way")
        daemon.kill(signal: SIGKILL)
        _ = daemon.waitForExit()
        let fetched = Dictionary(grouping: mediaRequests().dropFirst(first), by: { $0 }).mapValues(\.count)
        try await daemon.restart()
        try await reconnect()
        _ = try await client.setConfig([(key: "rate-limit", value: "0")])
        let resumed = try await waitFor(killed, .completed)
        XCTAssertEqual(resumed.filesDone, resumed.filesTotal, kind.name)
        let after = Dictionary(grouping: mediaRequests().dropFirst(first), by: { $0 }).mapValues(\.count)
        // Requests are counted, not pieces, and a request serving several files (both periods'
        // initializations are one URL) counts as fetched again only past those files: the
        // second period's may come after the restart, a file complete at the kill or not.
        let repeated = fetched.map { key, count in
            max(0, after[key, default: 0] - max(count, kind.sharedRequests[key, default: 1]))
        }.reduce(0, +)
        XCTAssertLessThanOrEqual(repeated, 2, "\(kind.name): only the pieces in flight at the kill are fetched again: \(fetched) then \(after)")
        XCTAssertGreaterThanOrEqual(fetched.values.reduce(0, +) - repeated, midway.filesDone,
                                    "\(kind.name): complete pieces are not fetched again: \(fetched) then \(after)")
        _ = try await client.export(id: killed, to: out + "-killed", decrypt: kind.drm != nil)
        XCTAssertEqual(try kind.exportFrames(out + "-killed"), DASHFixture.frameCount, "\(kind.name) after the kill")
    }

    /// Each request for media (not an MPD), named by its path and its Range.
    private func mediaRequests() -> [String] {
        http.requests.filter { !$0.path.hasSuffix(".mpd") }.map { $0.path + " " + ($0.header("Range") ?? "") }
    }

    /// The height and bandwidth of each Representation of `text` with a height, in order.
    private static func videoRepresentations(in text: String) -> [(height: Int?, bandwidth: Int?)] {
        let value = { (name: String, tag: Substring) -> Int? in
            guard let start = tag.range(of: " \(name)=\"") else { return nil }
            return Int(tag[start.upperBound...].prefix { $0 != "\"" })
        }
        return text.components(separatedBy: "<Representation ").dropFirst().compactMap { rest in
            let tag = rest.prefix { $0 != ">" }
            guard let height = value("height", tag), let bandwidth = value("bandwidth", tag) else { return nil }
            return (height, bandwidth)
        }
    }

    /// Frames ffprobe counts (`-count_frames`) in `initialization` joined with `segments`.
    private static func countFrames(initialization: String, segments: [String]) throws -> Int {
        let joined = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-frames") + "/joined.mp4"
        var data = try Data(contentsOf: URL(fileURLWithPath: initialization))
        for segment in segments { data += try Data(contentsOf: URL(fileURLWithPath: segment)) }
        try data.write(to: URL(fileURLWithPath: joined))
        let output = try MediaTool.run("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", joined,
        ], failOnStderr: true)
        guard let frames = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HLSFixtureError("ffprobe counted no frames in \(joined): \(output)")
        }
        return frames
    }
}
