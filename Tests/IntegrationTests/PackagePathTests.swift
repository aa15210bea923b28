import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// An HLS package under the one rule for paths: nothing is exported into the data dir, and the
/// package is read (export) and written (its playlists) from its folder's descriptor, never
/// through a symlink.
final class PackagePathTests: DaemonTestCase {
    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// A two-segment stream in `video/`, COMPLETED.
    private func completedStream(_ id: String) async throws {
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\ns0.ts\n#EXTINF:2,\ns1.ts\n#EXT-X-ENDLIST\n"
        http.serve(path: "/\(id)/master.m3u8", body: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nvideo.m3u8\n".utf8))
        http.serve(path: "/\(id)/video.m3u8", body: Array(media.utf8))
        http.serve(path: "/\(id)/s0.ts", body: TestBody.mpegTS(size: 4000, seed: 1))
        http.serve(path: "/\(id)/s1.ts", body: TestBody.mpegTS(size: 4000, seed: 2))
        _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id)/master.m3u8"), hls: HLSOptions()))
        try await waitFor(id, .completed)
    }

    func testAnExportIntoTheDataDirIsRefusedAndWritesNothing() async throws {
        try await completedStream("show")
        let data = daemon.dataDir
        let outside = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-into")
        try FileManager.default.createSymbolicLink(atPath: outside + "/into", withDestinationPath: data)
        for (dir, why) in [
            (data + "/exports/show", "is inside stash's data dir"), (data + "/assets/other", "is inside stash's data dir"),
            (outside + "/into/copy", "is inside stash's data dir"), (data + "/assets/show/..", "is inside stash's data dir"),
        ] {
            let refused = await assertFails(.invalidArgument) { try await self.client.export(id: "show", to: dir) }
            let message = refused?.message ?? ""
            XCTAssertTrue(message.contains("dir '\(dir)'") && message.contains(why), "\(dir): \(message)")
        }
        XCTAssertFalse(exists(data + "/exports"))
        XCTAssertFalse(exists(data + "/assets/other"))
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
        // Outside it, the same export is written.
        let result = try await client.export(id: "show", to: outside + "/copy")
        XCTAssertEqual(result.files, 4)
        XCTAssertTrue(exists(outside + "/copy/master.m3u8"))
    }

    /// A folder of the package replaced by a symlink to files of the same sizes (so the
    /// download still looks whole): the export reads none of them and takes back what it wrote.
    func testAnExportReadsNoSymlinkInThePackage() async throws {
        try await completedStream("tv")
        let outside = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-plant")
        let video = try FileManager.default.contentsOfDirectory(atPath: asset("tv") + "/video")
        XCTAssertFalse(video.isEmpty)
        for name in video {
            // The playlist as it is; the segments someone else's bytes.
            let path = asset("tv") + "/video/" + name
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let bytes = name.hasSuffix(".m3u8") ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data(repeating: UInt8(ascii: "S"), count: size)
            try bytes.write(to: URL(fileURLWithPath: outside + "/" + name))
        }
        // Planted while stashd is stopped: its start measures the files through the symlink
        // and finds them whole.
        XCTAssertEqual(daemon.terminate(), 0)
        try FileManager.default.removeItem(atPath: asset("tv") + "/video")
        try FileManager.default.createSymbolicLink(atPath: asset("tv") + "/video", withDestinationPath: outside)
        try await daemon.restart()
        try await reconnect()
        let still = try await client.getDownload(id: "tv")
        XCTAssertEqual(still.state, .completed)

        let target = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-out") + "/tv"
        let refused = await assertFails(.failedPrecondition) { try await self.client.export(id: "tv", to: target) }
        XCTAssertTrue(refused?.message.contains(asset("tv") + "/video") ?? false, refused?.message ?? "")
        XCTAssertFalse(exists(target), "a half-written export is taken back")
    }

    /// Resume of a damaged package reads its playlists again and writes them: a folder of the
    /// package replaced by a symlink fails that write, and the file at the link's end (here one
    /// named as the playlist) stays as it was.
    func testARepairWritesNoPlaylistThroughASymlink() async throws {
        try await completedStream("ep")
        let outside = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-playlist-plant")
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: outside + "/index.m3u8"))
        try FileManager.default.removeItem(atPath: asset("ep") + "/video")
        try FileManager.default.createSymbolicLink(atPath: asset("ep") + "/video", withDestinationPath: outside)
        _ = try await waitUntil("ep", timeout: 10) { $0.state == .failed }

        _ = try await client.resume(id: "ep")
        let failed = try await waitUntil("ep", timeout: 10) {
            $0.state == .failed && $0.error?.message.contains("no symlink is followed") == true
        }
        XCTAssertEqual(failed.error?.kind, .storage, failed.error?.message ?? "")
        XCTAssertEqual(try String(contentsOfFile: outside + "/index.m3u8", encoding: .utf8), "theirs")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), ["index.m3u8"], "nothing else was written there")
    }
}
