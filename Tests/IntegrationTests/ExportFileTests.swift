import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `stash export ID FILE`: an AES-128 HLS stream with two audio languages and two WebVTT
/// renditions, made by ffmpeg and downloaded by a real daemon, written as one MP4 and one
/// Matroska file, checked with ffprobe and against the source's decoded frames; and the
/// targets that are refused, and a single file copied or linked.
final class ExportFileTests: DaemonTestCase {
    private func stream() throws -> HLSFixture {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        return try HLSFixture.shared("ts-audio-renditions") { try HLSFixture.tsAudioRenditions(in: $0) }
    }

    /// The stream downloaded with both audio languages and both subtitle languages.
    private func downloaded(_ id: String = "film") async throws -> HLSFixture {
        let fixture = try stream()
        http.serveDirectory(fixture.directory, at: "/film")
        _ = try await client.addDownload(AddDownloadRequest(
            id: id, uri: http.url("/film/" + fixture.masterPath), hls: HLSOptions(subtitles: ["en", "es"], audio: ["en", "es"])))
        _ = try await waitFor(id, .completed)
        return fixture
    }

    private func outDir() throws -> String {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-file")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testAnEncryptedStreamBecomesOneMP4AndOneMKVWithEveryLanguage() async throws {
        let fixture = try await downloaded()
        // ffmpeg reads the source with its key beside it, as a player online would.
        let sourceFrames = try MediaProbe.videoFrameHashes(of: fixture.directory + "/" + fixture.masterPath)
        XCTAssertEqual(sourceFrames.count, fixture.seconds * HLSFixture.frameRate)
        let out = try outDir()
        let events = try await client.events(ids: ["film"])
        let heard = Task { () -> [ExportProgress] in
            var seen: [ExportProgress] = []
            for try await event in events {
                guard case .exportProgress(let progress) = event.kind else { continue }
                seen.append(progress)
                if progress.file == out + "/film.mkv" && progress.progressPercent == 100 { break }
            }
            return seen
        }
        for (format, subtitleCodec) in [(ExportFormat.mp4, "mov_text"), (.mkv, "webvtt")] {
            let path = out + "/film." + format.rawValue
            let result = try await client.export(id: "film", toFile: path)
            XCTAssertEqual(result.file, path)
            XCTAssertEqual(result.format, format)
            XCTAssertFalse(result.linked)
            XCTAssertEqual(result.tracks.map(\.kind), [.video, .audio, .audio, .subtitles, .subtitles])
            XCTAssertEqual(result.tracks.map(\.language), ["und", "eng", "spa", "eng", "spa"])
            XCTAssertEqual(result.tracks.map(\.title), ["", "English", "Español", "English", "Español"])
            XCTAssertEqual(Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1), result.bytes)

            let probed = try MediaProbe.summary(of: path)
            XCTAssertEqual(probed.streams.map(\.type), ["video", "audio", "audio", "subtitle", "subtitle"], "\(format)")
            XCTAssertEqual(probed.streams.map(\.codec), ["h264", "aac", "aac", subtitleCodec, subtitleCodec], "\(format)")
            XCTAssertEqual(probed.streams("audio").map(\.language), ["eng", "spa"], "\(format)")
            XCTAssertEqual(probed.streams("subtitle").map(\.language), ["eng", "spa"], "\(format)")
            XCTAssertEqual(probed.duration, Double(fixture.seconds), accuracy: 0.3, "\(format)")
            XCTAssertEqual(try MediaProbe.videoFrameHashes(of: path), sourceFrames, "\(format): the source's frames, decrypted, not re-encoded")
        }
        let progress = try await heard.value
        for format in ExportFormat.allCases {
            let file = progress.filter { $0.file == out + "/film." + format.rawValue }
            // A subscriber that reads later than they come sees only the newest waiting one.
            XCTAssertFalse(file.isEmpty, "\(format)")
            XCTAssertEqual(file.last?.progressPercent, 100, "\(format)")
            XCTAssertEqual(file.map(\.progressPercent), file.map(\.progressPercent).sorted(), "\(format): only forward")
            XCTAssertGreaterThan(file.last?.bytesTotal ?? 0, 0)
            XCTAssertEqual(file.last?.bytesDone, file.last?.bytesTotal)
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: out)), ["film.mp4", "film.mkv"], "nothing but the files")
    }

    func testATargetIsRefusedUnlessItIsANewFileOutsideTheDataDir() async throws {
        _ = try await downloaded()
        let out = try outDir()
        let existing = out + "/film.mkv"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let refused = await assertFails(.alreadyExists) { try await self.client.export(id: "film", toFile: existing) }
        XCTAssertTrue(refused?.message.contains("force") == true, refused?.message ?? "")
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me")
        let replaced = try await client.export(id: "film", toFile: existing, force: true)
        XCTAssertEqual(try MediaProbe.summary(of: existing).streams.count, replaced.tracks.count)

        try FileManager.default.createDirectory(atPath: out + "/folder.mp4", withIntermediateDirectories: false)
        let data = daemon.dataDir
        let cases: [(String, ExportFormat?, String)] = [
            (out + "/folder.mp4", nil, "is a folder"),
            (out + "/film.avi", nil, "does not end in .mp4, .m4v or .mkv"),
            (out + "/missing/film.mp4", nil, "does not exist"),
            ("film.mp4", nil, "must be an absolute path"),
            (data + "/film.mkv", nil, "is inside stash's data dir"),
            (data + "/assets/film/film.mp4", nil, "is inside stash's data dir"),
            (data, .mkv, "is stash's data dir"),
        ]
        for (target, format, why) in cases {
            let error = await assertFails(.invalidArgument) { try await self.client.export(id: "film", toFile: target, format: format, force: true) }
            XCTAssertTrue(error?.message.contains(why) == true, "\(target): \(error?.message ?? "")")
        }
        XCTAssertFalse(exists(data + "/film.mkv"))
        XCTAssertFalse(exists(data + "/assets/film/film.mp4"))
        // Named by format, any name is written.
        let named = try await client.export(id: "film", toFile: out + "/film.avi", format: .mkv)
        XCTAssertEqual(named.format, .mkv)
        XCTAssertEqual(try MediaProbe.summary(of: out + "/film.avi").format, "matroska,webm")
        await assertFails(.invalidArgument) { try await self.client.export(id: "film", toFile: out + "/x.mp4", link: true) }
        await assertFails(.notFound) { try await self.client.export(id: "nope", toFile: out + "/x.mp4") }
    }

    /// A side-loaded subtitle file counts from the stream's start: in the export of a window
    /// whose first segment begins at 2 s, a cue at 3 s shows at 1 s and one that ended at 1.5 s
    /// is left out. (Its cues used to stay where they were, 2 s late in the file.)
    func testASideLoadedTextTrackOfATimeWindowMovesWithTheWindow() async throws {
        let fixture = try stream()
        http.serveDirectory(fixture.directory, at: "/film")
        let vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:01.500\nbefore\n\n00:00:03.000 --> 00:00:03.500\ninside\n\n00:00:05.000 --> 00:00:05.500\nlater\n"
        http.serve(path: "/subs/de.vtt", body: Array(vtt.utf8))
        _ = try await client.addDownload(AddDownloadRequest(
            id: "window", uri: http.url("/film/" + fixture.masterPath), hls: HLSOptions(audio: ["en"], start: 2.5),
            textTracks: [TextTrack(uri: http.url("/subs/de.vtt"), language: "de", title: "Deutsch")]))
        _ = try await waitFor("window", .completed)
        let file = try outDir() + "/window.mkv"
        let result = try await client.export(id: "window", toFile: file)
        XCTAssertEqual(result.tracks.map(\.kind), [.video, .audio, .subtitles])
        let probed = try MediaProbe.summary(of: file)
        XCTAssertEqual(probed.duration, Double(fixture.seconds - HLSFixture.segmentSeconds), accuracy: 0.3, "segments 2-6 s")
        let cues = try MediaProbe.packetTimes(of: file, stream: 2)
        XCTAssertEqual(cues.count, 2, "\(cues)")
        XCTAssertEqual(cues.first ?? -1, 1.0, accuracy: 0.05, "the cue at 3 s of the stream, 2 s into the window")
        XCTAssertEqual(cues.last ?? -1, 3.0, accuracy: 0.05)
    }

    func testASingleFileIsCopiedOrLinked() async throws {
        http.serve(path: "/clip.bin", size: 300_000, seed: 7)
        _ = try await client.addDownload(AddDownloadRequest(id: "clip", uri: http.url("/clip.bin")))
        let done = try await waitFor("clip", .completed)
        let out = try outDir()
        let copied = try await client.export(id: "clip", toFile: out + "/copy.bin")
        XCTAssertNil(copied.format)
        XCTAssertFalse(copied.linked)
        XCTAssertEqual(copied.bytes, 300_000)
        XCTAssertEqual(try sha256Hex(ofFile: out + "/copy.bin"), try sha256Hex(ofFile: done.assetPath))

        let linked = try await client.export(id: "clip", toFile: out + "/link.bin", link: true)
        XCTAssertTrue(linked.linked)
        let inode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int }
        XCTAssertEqual(try inode(out + "/link.bin"), try inode(done.assetPath), "the same file")
        XCTAssertNotEqual(try inode(out + "/copy.bin"), try inode(done.assetPath))
        await assertFails(.alreadyExists) { try await self.client.export(id: "clip", toFile: out + "/link.bin", link: true) }
        _ = try await client.export(id: "clip", toFile: out + "/copy.bin", force: true, link: true)
        XCTAssertEqual(try inode(out + "/copy.bin"), try inode(done.assetPath), "--force replaced the copy with a link")
        let format = await assertFails(.invalidArgument) { try await self.client.export(id: "clip", toFile: out + "/clip.mkv", format: .mkv) }
        XCTAssertTrue(format?.message.contains("copied as it is") == true, format?.message ?? "")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: out)), ["copy.bin", "link.bin"])
    }

    func testAKillDuringTheExportLeavesNoPartOfTheFile() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        // Long enough that the export is still reading when its first percent is heard.
        let fixture = try HLSFixture.shared("ts-audio-renditions-30s") { try HLSFixture.tsAudioRenditions(in: $0, seconds: 30) }
        http.serveDirectory(fixture.directory, at: "/long")
        _ = try await client.addDownload(AddDownloadRequest(
            id: "long", uri: http.url("/long/" + fixture.masterPath), hls: HLSOptions(subtitles: ["en", "es"], audio: ["en", "es"])))
        _ = try await waitFor("long", .completed)
        let out = try outDir()
        let events = try await client.events(ids: ["long"])
        let client = self.client!
        let exporting = Task { try? await client.export(id: "long", toFile: out + "/long.mkv") }
        var heard: ExportProgress?
        for try await event in events {
            if case .exportProgress(let progress) = event.kind {
                heard = progress
                break
            }
        }
        daemon.kill(signal: SIGKILL)
        daemon.waitForExit()
        _ = await exporting.value
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        // Killed while it wrote (the usual case): nothing. Had it ended first: the whole file.
        if left.isEmpty {
            XCTAssertLessThan(heard?.progressPercent ?? 100, 100)
        } else {
            XCTAssertEqual(left, ["long.mkv"])
            XCTAssertEqual(try MediaProbe.videoFrameHashes(of: out + "/long.mkv").count, fixture.seconds * HLSFixture.frameRate)
        }
        try await daemon.restart()
        try await reconnect()
        let again = try await self.client.export(id: "long", toFile: out + "/long.mkv", force: true)
        XCTAssertEqual(again.tracks.count, 5)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["long.mkv"])
    }

    func testTheCommandLineExportsToAFile() async throws {
        _ = try await downloaded()
        let out = try outDir()
        let first = try daemon.runCLI(["export", "film", out + "/film.mkv"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("remuxed"), first.stdout)
        XCTAssertTrue(first.stdout.contains("audio spa aac \"Español\""), first.stdout)
        let again = try daemon.runCLI(["export", "film", out + "/film.mkv"])
        XCTAssertEqual(again.status, 1, "refused by the daemon")
        XCTAssertTrue(again.stderr.contains("--force"), again.stderr)
        let forced = try daemon.runCLI(["export", "film", out + "/film.mkv", "--force", "--json"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stdout.contains("\"format\":\"mkv\""), forced.stdout)
        let folder = try daemon.runCLI(["export", "film", out + "/package"])
        XCTAssertEqual(folder.status, 0, folder.stderr)
        XCTAssertTrue(exists(out + "/package/master.m3u8"), "without a file extension, an HLS download's target is a folder")
    }
}

/// A full disk under the target: the export fails with RESOURCE_EXHAUSTED and leaves nothing,
/// not even the space it took.
final class ExportFullDiskTests: DaemonTestCase {
    /// A folder stashd may not write to (a read-only file system: root passes permission bits)
    /// is refused naming the target, and leaves nothing.
    func testATargetThatCannotBeWrittenIsRefused() async throws {
        let mountPoint = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-ro")
        guard let disk = try SmallDisk.mount(at: mountPoint, bytes: 1 << 20) else { throw XCTSkip("mounting a tmpfs needs root (CAP_SYS_ADMIN)") }
        defer { disk.unmount() }
        XCTAssertTrue(try disk.makeReadOnly())
        http.serve(path: "/clip.bin", size: 4096, seed: 3)
        _ = try await client.addDownload(AddDownloadRequest(id: "clip", uri: http.url("/clip.bin")))
        _ = try await waitFor("clip", .completed)
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let fixture = try HLSFixture.shared("ts-audio-renditions") { try HLSFixture.tsAudioRenditions(in: $0) }
        http.serveDirectory(fixture.directory, at: "/film")
        _ = try await client.addDownload(AddDownloadRequest(id: "film", uri: http.url("/film/" + fixture.masterPath)))
        _ = try await waitFor("film", .completed)
        for (id, name) in [("clip", "clip.bin"), ("film", "film.mkv")] {
            do {
                _ = try await client.export(id: id, toFile: mountPoint + "/" + name)
                XCTFail("\(id): exported onto a read-only file system")
            } catch let error as StashError {
                XCTAssertTrue(error.message.contains(mountPoint), "\(id): names the target: \(error.message)")
                XCTAssertTrue(error.message.lowercased().contains("read-only"), "\(id): says why: \(error.message)")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mountPoint), [])
        XCTAssertTrue(daemon.isRunning)
    }

    func testAFullDiskLeavesNoFile() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let fixture = try HLSFixture.shared("ts-audio-renditions") { try HLSFixture.tsAudioRenditions(in: $0) }
        let mountPoint = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-full")
        guard let disk = try SmallDisk.mount(at: mountPoint, bytes: 256 << 10) else { throw XCTSkip("mounting a tmpfs needs root (CAP_SYS_ADMIN)") }
        defer { disk.unmount() }
        http.serveDirectory(fixture.directory, at: "/film")
        _ = try await client.addDownload(AddDownloadRequest(
            id: "film", uri: http.url("/film/" + fixture.masterPath), hls: HLSOptions(subtitles: ["en", "es"], audio: ["en", "es"])))
        let done = try await waitFor("film", .completed)
        XCTAssertGreaterThan(done.downloadedBytes, 256 << 10, "more than the disk holds")
        let free = { () -> UInt64 in
            var info = statvfs()
            XCTAssertEqual(statvfs(mountPoint, &info), 0)
            return UInt64(info.f_bavail) * UInt64(info.f_frsize)
        }
        let before = free()
        for format in ExportFormat.allCases {
            let error = await assertFails(.resourceExhausted) { try await self.client.export(id: "film", toFile: mountPoint + "/film." + format.rawValue) }
            XCTAssertTrue(error?.message.contains("nothing was written") == true, error?.message ?? "")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mountPoint), [], "\(format): no file, no temporary one")
            XCTAssertEqual(free(), before, "\(format): the space is given back")
        }
        XCTAssertTrue(daemon.isRunning)
    }
}
