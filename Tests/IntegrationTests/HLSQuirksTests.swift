import Foundation
import StashClient
import StashTestSupport
import XCTest

/// A stream as careless packagers write it, which players play but RFC 8216 forbids: no
/// EXT-X-TARGETDURATION, no BANDWIDTH, a space after every comma of an attribute list. A real
/// daemon plans it with warnings, downloads it to COMPLETED and exports what ffmpeg decodes.
final class HLSQuirksTests: DaemonTestCase {
    /// The ffmpeg-made encrypted stream with subtitles, its playlists rewritten as such a
    /// packager would have written them.
    private func serveQuirkyStream() throws -> HLSFixture {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let root = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-quirky")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let stream = try HLSFixture.tsAES128(in: root + "/ts", seconds: 6)
        try rewrite(stream.directory + "/" + stream.masterPath) { line in
            guard line.hasPrefix("#EXT-X-STREAM-INF:") || line.hasPrefix("#EXT-X-MEDIA:") else { return line }
            let spaced = line.replacingOccurrences(of: ",", with: ", ")
            guard line.hasPrefix("#EXT-X-STREAM-INF:") else { return spaced }
            // BANDWIDTH comes first in the fixture's lines; AVERAGE-BANDWIDTH stays.
            return spaced.replacingOccurrences(of: #"^#EXT-X-STREAM-INF:BANDWIDTH=\d+, "#, with: "#EXT-X-STREAM-INF:PROGRAM-ID=1, ",
                                               options: .regularExpression)
        }
        for playlist in stream.variants.map(\.path) + stream.subtitles.map(\.path) {
            try rewrite(stream.directory + "/" + playlist) { line in
                if line.hasPrefix("#EXT-X-TARGETDURATION:") { return nil }
                return line.hasPrefix("#EXT-X-KEY:") ? line.replacingOccurrences(of: ",", with: ", ") : line
            }
        }
        http.serveDirectory(stream.directory, at: "/quirky")
        return stream
    }

    /// Rewrites a playlist line by line; nil drops the line.
    private func rewrite(_ path: String, _ change: (String) -> String?) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { change(String($0)) }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    func testAQuirkyStreamIsPlannedWithWarningsAndDownloaded() async throws {
        let stream = try serveQuirkyStream()
        let master = try String(contentsOfFile: stream.directory + "/" + stream.masterPath, encoding: .utf8)
        XCTAssertFalse(master.contains(":BANDWIDTH=") || master.contains(" BANDWIDTH="), master)
        XCTAssertTrue(master.contains("#EXT-X-STREAM-INF:PROGRAM-ID=1, AVERAGE-BANDWIDTH="), master)
        let media = try String(contentsOfFile: stream.directory + "/" + stream.variants[0].path, encoding: .utf8)
        XCTAssertFalse(media.contains("TARGETDURATION"), media)
        XCTAssertTrue(media.contains("#EXT-X-KEY:METHOD=AES-128, URI="), media)

        let url = http.url("/quirky/" + stream.masterPath)
        let info = try await client.manifestInfo(uri: url)
        XCTAssertEqual(info.variants.map(\.bandwidth), [nil, nil, nil], "unknown, not 0")
        XCTAssertEqual(info.variants.map(\.averageBandwidth), stream.variants.map { UInt64($0.averageBandwidth) })
        XCTAssertEqual(info.variants.map(\.height), stream.variants.map { Optional($0.height) })
        XCTAssertEqual(info.subtitles.map(\.language), ["en", "es"])
        XCTAssertEqual(info.duration, Double(stream.seconds), accuracy: 0.5)
        XCTAssertEqual(info.warnings.filter { $0.contains("EXT-X-STREAM-INF has no BANDWIDTH") }.count, 3, "\(info.warnings)")
        for variant in stream.variants {
            XCTAssertTrue(info.warnings.contains { $0.hasPrefix(http.url("/quirky/" + variant.path) + ": the media playlist has no EXT-X-TARGETDURATION; 2 s") },
                          "\(variant.path): \(info.warnings)")
        }
        XCTAssertEqual(info.warnings.count, 6, "\(info.warnings)")

        let text = try daemon.runCLI(["plan", url])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("warning: line 6: EXT-X-STREAM-INF has no BANDWIDTH"), text.stdout)
        // The variants' table: its header, then a row per variant up to the blank line.
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let rows = lines.drop { !$0.hasPrefix("#  BANDWIDTH") }.dropFirst().prefix { !$0.isEmpty }
        XCTAssertEqual(rows.count, 3, text.stdout)
        XCTAssertTrue(rows.allSatisfy { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first == "unknown" }, text.stdout)
        let json = try daemon.runCLI(["plan", url, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["warnings"] as? [String])?.count, 6, json.stdout)
        let variants = try XCTUnwrap(object["variants"] as? [[String: Any]])
        XCTAssertTrue(variants.allSatisfy { $0["bandwidth"] == nil && $0["averageBandwidth"] != nil }, json.stdout)

        // No variant has a BANDWIDTH, so the first listed is chosen, as players start with it.
        _ = try await client.addDownload(AddDownloadRequest(id: "quirky", uri: url, hls: HLSOptions(subtitles: ["es"])))
        let done = try await waitFor("quirky", .completed)
        let chosen = stream.variants[0]
        XCTAssertEqual(done.quality, "\(chosen.width)x\(chosen.height), unknown bandwidth")
        XCTAssertTrue(done.hasSubtitles)
        XCTAssertEqual(done.downloadedBytes, done.totalBytes)
        let log = daemon.log()
        XCTAssertTrue(log.contains("HLS playlists read leniently") && log.contains("EXT-X-STREAM-INF has no BANDWIDTH"),
                      "a download added without a plan logs what was filled in")
        let local = try String(contentsOfFile: daemon.dataDir + "/assets/quirky/video/index.m3u8", encoding: .utf8)
        XCTAssertTrue(local.contains("#EXT-X-TARGETDURATION:2\n"), "the package's playlist has the value players filled in:\n\(local)")

        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-quirky-export") + "/clear"
        _ = try await client.export(id: "quirky", to: out, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), chosen.frameCount)
        let packaged = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
        XCTAssertTrue(packaged.contains("#EXT-X-STREAM-INF:BANDWIDTH=\(chosen.averageBandwidth),AVERAGE-BANDWIDTH=\(chosen.averageBandwidth),"),
                      "the package names a BANDWIDTH, the source's average in want of a peak:\n\(packaged)")
    }
}
