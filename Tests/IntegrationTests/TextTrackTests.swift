import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Side-loaded text tracks (subtitle files given by URL) of single files, bundles and HLS
/// streams, through a real daemon, socket, registry and HTTP server.
final class TextTrackTests: DaemonTestCase {
    private static let spanish = "WEBVTT\n\n00:00.000 --> 00:01.000\nHola\n"
    private static let forced = "WEBVTT\n\n00:00.000 --> 00:01.000\n¡Hola!\n"
    private static let english = "1\n00:00:00,000 --> 00:00:01,000\nHello\n"

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    private func serveText(_ path: String, _ text: String) { http.serve(path: path, body: Array(text.utf8)) }

    private func requests(_ path: String) -> Int { http.requests(for: path).count }

    private func spanishTrack() -> TextTrack {
        serveText("/subs/es.vtt", Self.spanish)
        return TextTrack(uri: http.url("/subs/es.vtt"), language: "es", title: "Español")
    }

    func testATextTrackIsFetchedWithASingleFileAndListed() async throws {
        http.serve(path: "/movie.mp4", size: 50_000)
        serveText("/subs/es-forced.vtt", Self.forced)
        serveText("/subs/en.srt", Self.english)
        let added = try await client.addDownload(AddDownloadRequest(id: "movie", uri: http.url("/movie.mp4"), textTracks: [
            spanishTrack(),
            TextTrack(uri: http.url("/subs/es-forced.vtt"), language: "es", title: "Español (forzados)"),
            TextTrack(uri: http.url("/subs/en.srt"), language: "en"),
        ])).download
        XCTAssertTrue(added.hasSubtitles)
        XCTAssertEqual(added.textTracks.map(\.path), ["subtitles/es.vtt", "subtitles/es-2.vtt", "subtitles/en.srt"])
        XCTAssertEqual(added.textTracks.map(\.type), ["vtt", "vtt", "srt"], "from the URL's extension")

        let done = try await waitFor("movie", .completed)
        XCTAssertTrue(done.hasSubtitles)
        XCTAssertEqual(done.assetPath, asset("movie") + "/movie.mp4", "the download is still its file")
        let trackBytes = Int64(Self.spanish.utf8.count + Self.forced.utf8.count + Self.english.utf8.count)
        XCTAssertEqual(done.totalBytes, 50_000 + trackBytes)
        XCTAssertEqual(try String(contentsOfFile: asset("movie") + "/subtitles/es.vtt", encoding: .utf8), Self.spanish)
        XCTAssertEqual(try String(contentsOfFile: asset("movie") + "/subtitles/es-2.vtt", encoding: .utf8), Self.forced)
        XCTAssertEqual(try String(contentsOfFile: asset("movie") + "/subtitles/en.srt", encoding: .utf8), Self.english)

        let listed = try await client.allSubtitles(id: "movie")
        XCTAssertEqual(listed.renditions, [])
        XCTAssertEqual(listed.textTracks, done.textTracks)
        let ls = try daemon.runCLI(["subtitles", "ls", "movie"])
        XCTAssertEqual(ls.status, 0, ls.stderr)
        XCTAssertTrue(ls.stdout.contains("subtitles/es-2.vtt") && ls.stdout.contains("Español (forzados)") && ls.stdout.contains("text-track,srt"), ls.stdout)
        let show = try daemon.runCLI(["show", "movie", "--json"])
        XCTAssertTrue(show.stdout.contains(#""textTracks""#) && show.stdout.contains(#""hasSubtitles":true"#), show.stdout)
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
        XCTAssertEqual(report.filesChecked, 4)
    }

    func testTracksAreAddedToAndRemovedFromACompletedDownload() async throws {
        http.serve(path: "/film.mp4", size: 30_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "film", uri: http.url("/film.mp4")))
        try await waitFor("film", .completed)
        // As before: a plain download without text tracks has no subtitles to list.
        await assertFails(.failedPrecondition) { try await self.client.subtitles(id: "film") }

        let adding = try await client.addTextTracks(id: "film", [spanishTrack()])
        XCTAssertEqual(adding.state, .queued, "a COMPLETED download goes back to the queue for its new track")
        XCTAssertTrue(adding.hasSubtitles)
        let withSpanish = try await waitFor("film", .completed)
        XCTAssertEqual(withSpanish.textTracks.map(\.path), ["subtitles/es.vtt"])
        XCTAssertEqual(requests("/film.mp4"), 1, "the video is not fetched again")
        XCTAssertEqual(requests("/subs/es.vtt"), 1)
        let again = try await client.addTextTracks(id: "film", [spanishTrack()])
        XCTAssertEqual(again.state, .completed, "a track it has is skipped: nothing to fetch")
        XCTAssertEqual(requests("/subs/es.vtt"), 1)

        serveText("/subs/fr.vtt", "WEBVTT\n")
        let cli = try daemon.runCLI(["subtitles", "add", "film", "--text-track", "uri=\(http.url("/subs/fr.vtt")),lang=fr,title=Français, québécois", "--wait"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let both = try await client.allSubtitles(id: "film").textTracks
        XCTAssertEqual(both.map(\.title), ["Español", "Français, québécois"], "a comma not followed by a key stays in the value")
        XCTAssertTrue(exists(asset("film") + "/subtitles/fr.vtt"))

        // Offline: nothing is fetched to remove a track.
        http.stop()
        let removed = try await client.removeSubtitles(id: "film", languages: ["es"])
        XCTAssertEqual(removed.state, .completed)
        XCTAssertEqual(removed.textTracks.map(\.language), ["fr"])
        XCTAssertTrue(removed.hasSubtitles)
        XCTAssertFalse(exists(asset("film") + "/subtitles/es.vtt"))
        let rm = try daemon.runCLI(["subtitles", "rm", "film", "fr"])
        XCTAssertEqual(rm.status, 0, rm.stderr)
        let bare = try await client.getDownload(id: "film")
        XCTAssertFalse(bare.hasSubtitles)
        XCTAssertEqual(bare.textTracks, [])
        XCTAssertEqual(bare.totalBytes, 30_000)
        XCTAssertFalse(exists(asset("film") + "/subtitles"), "the emptied folder goes too")
        await assertFails(.failedPrecondition) { try await self.client.removeSubtitles(id: "film", languages: ["fr"]) }
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
        // The disk watch takes a removed track's file for no loss: the first loss it reports
        // is one that comes after the removals.
        XCTAssertEqual(truncate(asset("film") + "/film.mp4", 10), 0)
        let failed = try await waitUntil("film") { $0.state != .completed }
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(failed.stateReason.contains("film.mp4") && failed.stateReason.contains("10 bytes on disk"), failed.stateReason)
    }

    func testBadTracksAreRefusedNamingTheFieldTheValueAndTheLimit() async throws {
        let url = http.url("/x.mp4")
        let cases: [(TextTrack, [String])] = [
            (TextTrack(uri: "ftp://h/es.vtt", language: "es"), ["text_tracks[0]", "ftp"]),
            (TextTrack(uri: "https://h/es.vtt", language: "e s"), ["text_tracks[0].lang", "'e s'"]),
            (TextTrack(uri: "https://h/es.vtt", language: String(repeating: "a", count: 36)), ["text_tracks[0].lang", "36 bytes", "35"]),
            (TextTrack(uri: "https://h/es.vtt", language: "es", title: String(repeating: "t", count: 300)), ["text_tracks[0].title", "300", "256"]),
            (TextTrack(uri: "https://h/es.vtt", language: "es", type: "ass"), ["text_tracks[0].type", "'ass'", "vtt, srt"]),
        ]
        for (track, parts) in cases {
            let error = await assertFails(.invalidArgument) {
                try await self.client.addDownload(AddDownloadRequest(uri: url, textTracks: [track]))
            }
            for part in parts { XCTAssertTrue(error?.message.contains(part) ?? false, "'\(part)' not in \(String(describing: error))") }
        }
        let many = (0...TextTrackRules.maxTracks).map { TextTrack(uri: "https://h/\($0).vtt", language: "es") }
        let tooMany = await assertFails(.invalidArgument) { try await self.client.addDownload(AddDownloadRequest(uri: url, textTracks: many)) }
        XCTAssertTrue(tooMany?.message.contains("33 entries") ?? false, "\(String(describing: tooMany))")
        XCTAssertTrue(tooMany?.message.contains("limit is 32") ?? false, "\(String(describing: tooMany))")
        let none = try await client.listDownloads()
        XCTAssertEqual(none.total, 0, "nothing was added")

        await assertFails(.notFound) { try await self.client.addTextTracks(id: "nobody", [TextTrack(uri: "https://h/a.vtt", language: "es")]) }
        let appendTracks = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(id: "b", uri: "", files: [BundleFileSpec(url: url)], append: true,
                                                                 textTracks: [TextTrack(uri: "https://h/a.vtt", language: "es")]))
        }
        XCTAssertTrue(appendTracks?.message.contains("text_tracks") ?? false, "\(String(describing: appendTracks))")

        let noURI = try daemon.runCLI(["add", url, "--text-track", "lang=es"])
        XCTAssertEqual(noURI.status, 2)
        XCTAssertTrue(noURI.stderr.contains("uri=URL"), noURI.stderr)
        let badLang = try daemon.runCLI(["add", url, "--text-track", "uri=https://h/a.vtt,lang=e_s"])
        XCTAssertEqual(badLang.status, 2, "a value the daemon refuses is a usage error")
        XCTAssertTrue(badLang.stderr.contains("text_tracks[0].lang"), badLang.stderr)
        let both = try daemon.runCLI(["subtitles", "add", "x", "en", "--text-track", "uri=https://h/a.vtt,lang=es"])
        XCTAssertEqual(both.status, 2)
    }

    func testATrackSurvivesARestartIsWatchedAndVerified() async throws {
        http.serve(path: "/kept.mp4", size: 20_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "kept", uri: http.url("/kept.mp4"), textTracks: [spanishTrack()]))
        let done = try await waitFor("kept", .completed)
        try await daemon.restart()
        try await reconnect()
        let after = try await client.getDownload(id: "kept")
        XCTAssertEqual(after.state, .completed)
        XCTAssertEqual(after.textTracks, done.textTracks)
        XCTAssertTrue(after.hasSubtitles)
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")

        // The track is a file of the download: deleting it is a loss the disk watch sees.
        let track = asset("kept") + "/subtitles/es.vtt"
        try FileManager.default.removeItem(atPath: track)
        let failed = try await waitUntil("kept", timeout: 5) { $0.state == .failed }
        XCTAssertTrue(failed.stateReason.contains("subtitles/es.vtt"), failed.stateReason)
        let found = try await client.verify()
        XCTAssertEqual(found.findings.map(\.kind), [.missingFile])
        XCTAssertEqual(found.findings.first?.path, track)
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        try await waitFor("kept", .completed)
        XCTAssertEqual(requests("/kept.mp4"), 1, "only the track is fetched again")
        XCTAssertEqual(requests("/subs/es.vtt"), 2)
        XCTAssertEqual(try String(contentsOfFile: track, encoding: .utf8), Self.spanish)
    }

    func testABundleTakesTextTracksBesideItsFiles() async throws {
        let pages = (1...2).map { index -> BundleFileSpec in
            http.serve(path: "/ch/\(index).jpg", size: 1000 * index)
            return BundleFileSpec(url: http.url("/ch/\(index).jpg"), path: "pages/\(index).jpg")
        }
        let added = try await client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: pages, textTracks: [spanishTrack()])).download
        XCTAssertEqual(added.filesTotal, 3)
        let done = try await waitFor("ch", .completed)
        XCTAssertEqual(done.files.map(\.path), ["pages/1.jpg", "pages/2.jpg", "subtitles/es.vtt"])
        XCTAssertTrue(exists(asset("ch") + "/subtitles/es.vtt"))
        // Dedupe and the same id compare the bundle's own files.
        let same = try await client.addDownload(AddDownloadRequest(uri: "", files: pages))
        XCTAssertEqual(same.download.id, "ch")
        XCTAssertFalse(same.created)
        let again = try await client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: pages, textTracks: [spanishTrack()]))
        XCTAssertFalse(again.created)
        serveText("/subs/de.vtt", "WEBVTT\n")
        let lacking = await assertFails(.alreadyExists) {
            try await self.client.addDownload(AddDownloadRequest(uri: "", files: pages, textTracks: [TextTrack(uri: self.http.url("/subs/de.vtt"), language: "de")]))
        }
        XCTAssertTrue(lacking?.message.contains("'ch'") ?? false, "names the holder: \(String(describing: lacking))")
        XCTAssertTrue(lacking?.message.contains("de (") ?? false, "names the track: \(String(describing: lacking))")
        // A track's path is not a bundle file's.
        let clash = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: [BundleFileSpec(url: pages[0].url, path: "subtitles/es.vtt")], append: true))
        }
        XCTAssertTrue(clash?.message.contains("text track") ?? false, "\(String(describing: clash))")
        let appended = try await client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: [BundleFileSpec(url: pages[0].url, path: "pages/copy.jpg")], append: true))
        XCTAssertEqual(appended.download.filesTotal, 4)
        try await waitFor("ch", .completed)
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
    }

    func testAnHLSStreamTakesTextTracks() async throws {
        serveText("/hls/index.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\ns0.ts\n#EXTINF:2,\ns1.ts\n#EXT-X-ENDLIST\n")
        http.serve(path: "/hls/s0.ts", body: TestBody.mpegTS(size: 4000, seed: 1))
        http.serve(path: "/hls/s1.ts", body: TestBody.mpegTS(size: 4000, seed: 2))
        _ = try await client.addDownload(AddDownloadRequest(id: "show", uri: http.url("/hls/index.m3u8"), hls: HLSOptions(), textTracks: [spanishTrack()]))
        let done = try await waitFor("show", .completed)
        XCTAssertTrue(done.hasSubtitles)
        XCTAssertEqual(done.textTracks.map(\.path), ["subtitles/es.vtt"])
        XCTAssertEqual(try String(contentsOfFile: asset("show") + "/subtitles/es.vtt", encoding: .utf8), Self.spanish)
        let listed = try await client.allSubtitles(id: "show")
        XCTAssertEqual(listed.textTracks.map(\.language), ["es"])
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
        // The export a player opens offline carries the track beside the package.
        let exported = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export-tracks") + "/show"
        let result = try await client.export(id: "show", to: exported, decrypt: false)
        XCTAssertEqual(try String(contentsOfFile: exported + "/subtitles/es.vtt", encoding: .utf8), Self.spanish)
        XCTAssertTrue(exists(exported + "/master.m3u8"))
        XCTAssertEqual(result.files, 5, "master, media playlist, two segments and the track")

        try await daemon.restart()
        try await reconnect()
        let removed = try await client.removeSubtitles(id: "show", languages: ["es"])
        XCTAssertFalse(removed.hasSubtitles)
        XCTAssertEqual(removed.state, .completed)
        XCTAssertFalse(exists(asset("show") + "/subtitles/es.vtt"))
        XCTAssertTrue(exists(asset("show") + "/master.m3u8"), "the package stays")
        let after = try await client.verify()
        XCTAssertTrue(after.findings.isEmpty, "\(after.findings)")
    }

    /// Renditions of the stream and side-loaded tracks live side by side: adding a language
    /// reads the playlists again and keeps the track's file; removing one kind leaves the other.
    func testRenditionsAndTextTracksOfOneStreamAreAddedAndRemovedApart() async throws {
        let media = { (segments: [String]) in
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + segments.map { "#EXTINF:2,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        serveText("/tv/master.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,SUBTITLES="subs"
            video.m3u8

            """)
        serveText("/tv/video.m3u8", media(["v0.ts", "v1.ts"]))
        serveText("/tv/subs/en.m3u8", media(["en0.vtt"]))
        http.serve(path: "/tv/v0.ts", body: TestBody.mpegTS(size: 3000, seed: 1))
        http.serve(path: "/tv/v1.ts", body: TestBody.mpegTS(size: 3000, seed: 2))
        serveText("/tv/subs/en0.vtt", "WEBVTT\n")
        _ = try await client.addDownload(AddDownloadRequest(id: "tv", uri: http.url("/tv/master.m3u8"), hls: HLSOptions(), textTracks: [spanishTrack()]))
        try await waitFor("tv", .completed)
        let onlyTrack = try await client.allSubtitles(id: "tv")
        XCTAssertEqual(onlyTrack.renditions, [])
        XCTAssertEqual(onlyTrack.textTracks.map(\.path), ["subtitles/es.vtt"])

        _ = try await client.addSubtitles(id: "tv", languages: ["en"])
        try await waitFor("tv", .completed)
        let both = try await client.allSubtitles(id: "tv")
        XCTAssertEqual(both.renditions.map(\.language), ["en"])
        XCTAssertEqual(both.textTracks.map(\.path), ["subtitles/es.vtt"])
        XCTAssertEqual(requests("/subs/es.vtt"), 1, "the track on disk is kept when the playlists are read again")
        XCTAssertEqual(requests("/tv/v0.ts"), 1)
        XCTAssertEqual(requests("/tv/subs/en0.vtt"), 1)

        let withoutEnglish = try await client.removeSubtitles(id: "tv", languages: ["en"])
        XCTAssertTrue(withoutEnglish.hasSubtitles, "the track is left")
        XCTAssertTrue(exists(asset("tv") + "/subtitles/es.vtt"))
        XCTAssertFalse(exists(asset("tv") + "/subtitles/en"))
        let bare = try await client.removeSubtitles(id: "tv", languages: ["es"])
        XCTAssertFalse(bare.hasSubtitles)
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
    }

    /// A symlink planted at `<asset>/subtitles` leads out of the data dir: removing a rendition
    /// (a folder there) or a track (a file there) follows it nowhere; the removal is refused
    /// naming it, and what is outside stays.
    func testRemovingSubtitlesFollowsNoSymlinkPlantedInTheAssetFolder() async throws {
        let media = { (segments: [String]) in
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + segments.map { "#EXTINF:2,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        serveText("/pl/master.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,SUBTITLES="subs"
            video.m3u8

            """)
        serveText("/pl/video.m3u8", media(["v0.ts"]))
        serveText("/pl/subs/en.m3u8", media(["en0.vtt"]))
        http.serve(path: "/pl/v0.ts", body: TestBody.mpegTS(size: 3000, seed: 1))
        serveText("/pl/subs/en0.vtt", "WEBVTT\n")
        _ = try await client.addDownload(AddDownloadRequest(
            id: "pl", uri: http.url("/pl/master.m3u8"), hls: HLSOptions(subtitles: ["en"]), textTracks: [spanishTrack()]))
        try await waitFor("pl", .completed)
        XCTAssertTrue(exists(asset("pl") + "/subtitles/en"))
        XCTAssertTrue(exists(asset("pl") + "/subtitles/es.vtt"))

        // Someone else's folder, with names the removal would delete.
        let outside = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-outside")
        try FileManager.default.createDirectory(atPath: outside + "/en", withIntermediateDirectories: false)
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: outside + "/en/notes.txt"))
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: outside + "/es.vtt"))
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: outside + "/unrelated.txt"))
        try FileManager.default.removeItem(atPath: asset("pl") + "/subtitles")
        try FileManager.default.createSymbolicLink(atPath: asset("pl") + "/subtitles", withDestinationPath: outside)

        for language in ["en", "es"] {
            let refused = await assertFails(.failedPrecondition) { try await self.client.removeSubtitles(id: "pl", languages: [language]) }
            XCTAssertTrue(refused?.message.contains(asset("pl") + "/subtitles is a symlink") ?? false, refused?.message ?? "")
        }
        for path in ["/en/notes.txt", "/es.vtt", "/unrelated.txt"] {
            XCTAssertEqual(try String(contentsOfFile: outside + path, encoding: .utf8), "theirs", path)
        }
        let kept = try await client.allSubtitles(id: "pl")
        XCTAssertEqual(kept.renditions.map(\.language), ["en"], "nothing changed")
        XCTAssertEqual(kept.textTracks.map(\.language), ["es"])
    }

    func testForgetHandsOverASingleFileWithItsTracksAsAFolder() async throws {
        http.serve(path: "/ep.mp4", size: 10_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "ep", uri: http.url("/ep.mp4"), textTracks: [spanishTrack()]))
        try await waitFor("ep", .completed)
        let target = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-forget-tracks")
        let forgotten = try await client.forget(id: "ep", moveTo: target)
        XCTAssertEqual(forgotten.assetPath, target + "/ep")
        XCTAssertTrue(exists(target + "/ep/ep.mp4"))
        XCTAssertEqual(try String(contentsOfFile: target + "/ep/subtitles/es.vtt", encoding: .utf8), Self.spanish)
        await assertFails(.notFound) { try await self.client.getDownload(id: "ep") }
    }
}
