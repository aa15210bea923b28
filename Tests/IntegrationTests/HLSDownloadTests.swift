import Foundation
import StashClient
import StashTestSupport
import XCTest

/// HLS streams made by ffmpeg, served by the test server, downloaded by a real daemon and
/// played back from the export by ffmpeg.
final class HLSDownloadTests: DaemonTestCase {
    /// The streams are made once for every test process (`HLSFixture.shared`): ffmpeg is the
    /// slow part.
    private typealias Streams = (ts: HLSFixture, fmp4: HLSFixture, ranges: HLSFixture)

    private func fixtures() throws -> Streams {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        return (
            ts: try HLSFixture.shared("ts-aes128") { try HLSFixture.tsAES128(in: $0) },
            fmp4: try HLSFixture.shared("fmp4") { try HLSFixture.fmp4(in: $0) },
            ranges: try HLSFixture.shared("byte-ranges") { try HLSFixture.singleFileByteRange(in: $0) })
    }

    private func serve() throws -> (ts: HLSFixture, fmp4: HLSFixture, ranges: HLSFixture) {
        let made = try fixtures()
        http.serveDirectory(made.ts.directory, at: "/ts")
        http.serveDirectory(made.fmp4.directory, at: "/fmp4")
        http.serveDirectory(made.ranges.directory, at: "/ranges")
        return made
    }

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    private func exportDir(_ name: String) throws -> String {
        try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/" + name
    }

    private func add(_ id: String, _ url: String, _ options: HLSOptions? = HLSOptions()) async throws -> Download {
        try await client.addDownload(AddDownloadRequest(id: id, uri: url, hls: options)).download
    }

    /// Paths of the fixture's segments the server was asked for, per variant folder.
    private func requestedVariants(prefix: String) -> Set<String> {
        Set(http.requests.compactMap { request -> String? in
            guard request.path.hasPrefix(prefix + "/v"), request.path.hasSuffix(".ts") else { return nil }
            return String(request.path.dropFirst(prefix.count + 1).prefix { $0 != "/" })
        })
    }

    func testQualityRulesPickTheVariant() async throws {
        let ts = try serve().ts
        let cases: [(String, HLSOptions, Int)] = [
            // v0 400 kb/s, v1 1.6 Mb/s, v2 3.2 Mb/s.
            ("low", HLSOptions(quality: .low), 1),
            ("medium", HLSOptions(quality: .medium), 1),
            ("high", HLSOptions(quality: .high), 2),
            ("auto", HLSOptions(quality: .auto), 2),
            ("height", HLSOptions(maxHeight: 200), 0),
            ("bandwidth", HLSOptions(bandwidth: 2_000_000), 1),
        ]
        for (id, options, expected) in cases {
            let done = try await add(id, http.url("/ts/" + ts.masterPath), options)
            XCTAssertEqual(done.hls, options)
            let completed = try await waitFor(id, .completed)
            let variant = ts.variants[expected]
            XCTAssertTrue(completed.quality.hasPrefix("\(variant.width)x\(variant.height),"), "\(id): \(completed.quality)")
            XCTAssertEqual(completed.filesTotal, variant.segmentCount, id)
            let local = try String(contentsOfFile: asset(id) + "/master.m3u8", encoding: .utf8)
            XCTAssertTrue(local.contains("RESOLUTION=\(variant.width)x\(variant.height)"), local)
            XCTAssertEqual(local.components(separatedBy: "#EXT-X-STREAM-INF").count, 2, "only the chosen variant:\n\(local)")
        }
    }

    func testEncryptedStreamWithSubtitlesExportsAndDecodes() async throws {
        let ts = try serve().ts
        let added = try await add("movie", http.url("/ts/" + ts.masterPath), HLSOptions(quality: .medium, subtitles: ["en", "es"]))
        XCTAssertEqual(added.state, .queued)
        let done = try await waitFor("movie", .completed)
        XCTAssertTrue(done.hasSubtitles)
        XCTAssertEqual(done.progressPercent, 100)
        XCTAssertEqual(done.downloadedBytes, done.totalBytes)
        XCTAssertEqual(requestedVariants(prefix: "/ts"), ["v1"], "only the chosen variant's segments are fetched")
        let variant = ts.variants[1]
        let master = try String(contentsOfFile: asset("movie") + "/master.m3u8", encoding: .utf8)
        XCTAssertEqual(master.components(separatedBy: "TYPE=SUBTITLES").count, 3, master)

        // Segments stay encrypted on disk; the key is only in the sealed store.
        let key = try XCTUnwrap(ts.keyHex)
        let keyBytes = Data(stride(from: 0, to: key.count, by: 2).map { UInt8(key.dropFirst($0).prefix(2), radix: 16)! })
        let segment = try Data(contentsOf: URL(fileURLWithPath: asset("movie") + "/video/seg00000.ts"))
        XCTAssertNotEqual(segment.first, 0x47, "an MPEG-TS packet starts with 0x47; an encrypted segment does not")
        let sealed = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/keys/movie")
        XCTAssertEqual(sealed.count, 1)
        let sealedPath = daemon.dataDir + "/keys/movie/" + sealed[0]
        let sealedBytes = try Data(contentsOf: URL(fileURLWithPath: sealedPath))
        XCTAssertNil(sealedBytes.range(of: keyBytes), "the sealed file does not hold the key in the clear")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: sealedPath)[.posixPermissions] as? Int, 0o600)
        XCTAssertFalse(daemon.log().contains(key), "the key never reaches the log, even at debug level")
        XCTAssertFalse(exists(asset("movie") + "/video/key0.key"), "no key in the clear in the asset folder")

        let encrypted = try exportDir("encrypted")
        let exported = try await client.export(id: "movie", to: encrypted)
        XCTAssertFalse(exported.decrypted)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: encrypted + "/video/key0.key")), keyBytes)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: encrypted + "/video/key0.key")[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: encrypted + "/master.m3u8"), variant.frameCount)
        for language in ["en", "es"] {
            let vtt = try FileManager.default.contentsOfDirectory(atPath: encrypted + "/subtitles/" + language).filter { $0.hasSuffix(".vtt") }
            XCTAssertFalse(vtt.isEmpty, "subtitles \(language) exported")
        }

        let clear = try exportDir("clear")
        let decrypted = try await client.export(id: "movie", to: clear, decrypt: true)
        XCTAssertTrue(decrypted.decrypted)
        XCTAssertFalse(exists(clear + "/video/key0.key"))
        let playlist = try String(contentsOfFile: clear + "/video/index.m3u8", encoding: .utf8)
        XCTAssertFalse(playlist.contains("EXT-X-KEY"), playlist)
        let clearSegment = try Data(contentsOf: URL(fileURLWithPath: clear + "/video/seg00000.ts"))
        XCTAssertEqual(clearSegment.first, 0x47, "decrypted MPEG-TS")
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: clear + "/master.m3u8"), variant.frameCount)

        await assertFails(.invalidArgument) { try await self.client.export(id: "movie", to: clear) }
        await assertFails(.invalidArgument) { try await self.client.export(id: "movie", to: "relative/dir") }
        await assertFails(.notFound) { try await self.client.export(id: "nope", to: clear + "2") }

        try await client.cancel(id: "movie")
        XCTAssertFalse(exists(asset("movie")))
        XCTAssertFalse(exists(daemon.dataDir + "/keys/movie"), "removing the asset deletes its keys")
    }

    func testFragmentedMP4WithInitSection() async throws {
        let fmp4 = try serve().fmp4
        _ = try await add("fmp4", http.url("/fmp4/" + fmp4.masterPath))
        let done = try await waitFor("fmp4", .completed)
        XCTAssertEqual(done.filesTotal, fmp4.variants[0].segmentCount + 1, "segments and one init section")
        let playlist = try String(contentsOfFile: asset("fmp4") + "/video/index.m3u8", encoding: .utf8)
        XCTAssertTrue(playlist.contains("#EXT-X-MAP:URI=\"init0.mp4\""), playlist)
        let out = try exportDir("fmp4")
        _ = try await client.export(id: "fmp4", to: out)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), fmp4.variants[0].frameCount)
    }

    func testSingleFileByteRangesBecomeOneFileEach() async throws {
        let ranges = try serve().ranges
        _ = try await add("ranges", http.url("/ranges/" + ranges.masterPath))
        let done = try await waitFor("ranges", .completed)
        XCTAssertEqual(done.filesTotal, ranges.variants[0].segmentCount)
        let playlist = try String(contentsOfFile: asset("ranges") + "/video/index.m3u8", encoding: .utf8)
        XCTAssertFalse(playlist.contains("BYTERANGE"), playlist)
        let mediaRequests = http.requests.filter { $0.path.hasSuffix(".ts") }
        XCTAssertEqual(mediaRequests.count, ranges.variants[0].segmentCount)
        for request in mediaRequests {
            let range = request.headers.first { $0.name.lowercased() == "range" }?.value ?? ""
            XCTAssertNotNil(range.range(of: #"^bytes=\d+-\d+$"#, options: .regularExpression), "closed range: '\(range)'")
        }
        let out = try exportDir("ranges")
        _ = try await client.export(id: "ranges", to: out)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), ranges.variants[0].frameCount)
    }

    func testKilledMidDownloadRestartFetchesOnlyMissingSegments() async throws {
        let ts = try serve().ts
        // Slow enough to stop in the middle: about 1.5 s for the 360p variant.
        _ = try await client.setConfig([(key: "rate-limit", value: "400000")])
        _ = try await add("killed", http.url("/ts/" + ts.masterPath), HLSOptions(quality: .high, segmentConcurrency: 2))
        _ = try await waitUntil("killed") { $0.filesDone >= 2 }
        daemon.kill(signal: SIGKILL)
        _ = daemon.waitForExit()
        let before = Dictionary(grouping: http.requests.filter { $0.path.hasSuffix(".ts") }, by: \.path).mapValues(\.count)
        try await daemon.restart()
        try await reconnect()
        _ = try await client.setConfig([(key: "rate-limit", value: "0")])
        let done = try await waitFor("killed", .completed)
        XCTAssertEqual(done.quality.hasPrefix("640x360"), true, "the stored choice holds after the restart: \(done.quality)")
        let after = Dictionary(grouping: http.requests.filter { $0.path.hasSuffix(".ts") }, by: \.path).mapValues(\.count)
        let fetchedAgain = before.keys.filter { (after[$0] ?? 0) > before[$0]! }
        XCTAssertLessThanOrEqual(fetchedAgain.count, 2, "only segments in flight at the kill are fetched again: \(fetchedAgain.sorted())")
        XCTAssertGreaterThanOrEqual(before.count - fetchedAgain.count, 2, "complete segments are not fetched again")
        XCTAssertEqual(after.count, ts.variants[2].segmentCount)
        let out = try exportDir("killed")
        _ = try await client.export(id: "killed", to: out, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), ts.variants[2].frameCount)
    }

    func testPlanDescribesTheStream() async throws {
        let made = try serve()
        let info = try await client.manifestInfo(uri: http.url("/ts/" + made.ts.masterPath))
        XCTAssertEqual(info.variants.map(\.bandwidth), made.ts.variants.map { UInt64($0.bandwidth) })
        XCTAssertEqual(info.variants.map(\.height), made.ts.variants.map { Optional($0.height) })
        XCTAssertEqual(info.variants.map(\.encryption), Array(repeating: ["AES-128"], count: 3))
        XCTAssertEqual(info.subtitles.map(\.language), ["en", "es"])
        XCTAssertEqual(info.duration, Double(made.ts.seconds), accuracy: 0.5)
        XCTAssertFalse(info.variants[0].sizeIsExact)
        let ranges = try await client.manifestInfo(uri: http.url("/ranges/" + made.ranges.masterPath))
        XCTAssertTrue(ranges.variants[0].sizeIsExact)
        let mediaSize = try FileManager.default.attributesOfItem(atPath: made.ranges.directory + "/v0/media.ts")[.size] as? Int
        XCTAssertEqual(ranges.variants[0].estimatedBytes, Int64(try XCTUnwrap(mediaSize)))
        let stored = try await client.listDownloads().total
        XCTAssertEqual(stored, 0, "plan stores nothing")
        await assertFails(.unavailable) { try await self.client.manifestInfo(uri: self.http.url("/missing.m3u8")) }
    }

    func testServerContentTypeMakesAPlainURLAnHLSDownload() async throws {
        let ts = try serve().ts
        let masterText = try Data(contentsOf: URL(fileURLWithPath: ts.directory + "/" + ts.masterPath))
        var route = TestRoute(body: .bytes([UInt8](masterText)))
        route.contentType = "application/vnd.apple.mpegurl"
        http.serve(path: "/ts/watch", route: route)
        let added = try await client.addDownload(AddDownloadRequest(id: "sniffed", uri: http.url("/ts/watch"))).download
        XCTAssertNil(added.hls, "nothing says HLS before the server answers")
        let done = try await waitFor("sniffed", .completed)
        XCTAssertNotNil(done.hls)
        XCTAssertEqual(done.assetPath, asset("sniffed"))
        XCTAssertTrue(done.quality.hasPrefix("640x360"), done.quality)
        XCTAssertFalse(exists(asset("sniffed") + "/watch.part"))
        XCTAssertTrue(exists(asset("sniffed") + "/master.m3u8"))
    }

    func testVerifyFindsAndRepairsAMissingSegmentAndPlaylist() async throws {
        let fmp4 = try serve().fmp4
        _ = try await add("v", http.url("/fmp4/" + fmp4.masterPath))
        _ = try await waitFor("v", .completed)
        try FileManager.default.removeItem(atPath: asset("v") + "/video/seg00001.m4s")
        try FileManager.default.removeItem(atPath: asset("v") + "/video/index.m3u8")
        let report = try await client.verify()
        XCTAssertEqual(Set(report.findings.filter { $0.kind == .missingFile }.map(\.path)),
                       [asset("v") + "/video/seg00001.m4s", asset("v") + "/video/index.m3u8"])
        let segmentsBefore = http.requests.filter { $0.path.hasSuffix(".m4s") }.count
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        _ = try await waitFor("v", .completed)
        let segmentsAfter = http.requests.filter { $0.path.hasSuffix(".m4s") }.count
        XCTAssertEqual(segmentsAfter - segmentsBefore, 1, "only the missing segment is fetched again")
        XCTAssertTrue(exists(asset("v") + "/video/index.m3u8"))
        let after = try await client.verify()
        XCTAssertTrue(after.findings.isEmpty, "\(after.findings)")
    }

    func testADeletedPlaylistFailsThePackageAndResumeRestoresItWithoutSegments() async throws {
        let ts = try serve().ts
        _ = try await add("pl", http.url("/ts/" + ts.masterPath), HLSOptions(quality: .low))
        _ = try await waitFor("pl", .completed)
        let master = asset("pl") + "/master.m3u8"
        try FileManager.default.removeItem(atPath: master)
        let failed = try await waitUntil("pl", timeout: 10) { $0.state == .failed }
        XCTAssertTrue(failed.stateReason.contains(master), failed.stateReason)

        let segmentsBefore = http.requests.filter { $0.path.hasSuffix(".ts") }.count
        _ = try await client.resume(id: "pl")
        _ = try await waitFor("pl", .completed)
        XCTAssertTrue(exists(master))
        XCTAssertEqual(http.requests.filter { $0.path.hasSuffix(".ts") }.count, segmentsBefore, "no segment is fetched again")
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")
    }

    func testVerifyFindsAMissingKeyAndRepairFetchesOnlyTheKey() async throws {
        let ts = try serve().ts
        _ = try await add("keyed", http.url("/ts/" + ts.masterPath), HLSOptions(quality: .low))
        _ = try await waitFor("keyed", .completed)
        let keyFolder = daemon.dataDir + "/keys/keyed"
        // Keys left by a download that is gone are orphans.
        let ghost = daemon.dataDir + "/keys/ghost"
        try FileManager.default.copyItem(atPath: keyFolder, toPath: ghost)
        try FileManager.default.removeItem(atPath: keyFolder)
        let report = try await client.verify()
        let missing = report.findings.filter { $0.kind == .missingFile }
        XCTAssertEqual(missing.map(\.path), [keyFolder])
        XCTAssertEqual(report.findings.filter { $0.kind == .orphanFolder }.map(\.path), [ghost])
        let purged = try await client.purge()
        XCTAssertEqual(purged.paths, [ghost])
        XCTAssertFalse(exists(ghost))
        XCTAssertTrue(missing.first?.detail.contains("video/key0.key") ?? false, "\(missing)")
        let refused = try exportDir("nokey")
        await assertFails(.failedPrecondition) { try await self.client.export(id: "keyed", to: refused) }
        XCTAssertFalse(exists(refused), "a failed export leaves nothing behind")

        let segmentsBefore = http.requests.filter { $0.path.hasSuffix(".ts") }.count
        let keyRequestsBefore = http.requests.filter { $0.path.hasSuffix(".key") }.count
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        _ = try await waitFor("keyed", .completed)
        XCTAssertEqual(http.requests.filter { $0.path.hasSuffix(".ts") }.count, segmentsBefore, "no segment is fetched again")
        XCTAssertEqual(http.requests.filter { $0.path.hasSuffix(".key") }.count, keyRequestsBefore + 1)
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")
        let out = try exportDir("keyed")
        _ = try await client.export(id: "keyed", to: out, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), ts.variants[1].frameCount)
    }

    func testSubtitlesAreAddedAndRemovedWithoutFetchingTheVideoAgain() async throws {
        let ts = try serve().ts
        _ = try await add("subs", http.url("/ts/" + ts.masterPath), HLSOptions(quality: .low))
        _ = try await waitFor("subs", .completed)
        let none = try await client.subtitles(id: "subs")
        XCTAssertEqual(none, [])
        let segmentRequests = { self.http.requests.filter { $0.path.hasSuffix(".ts") }.count }
        let videoBefore = segmentRequests()

        let adding = try await client.addSubtitles(id: "subs", languages: ["es"])
        XCTAssertNotEqual(adding.state, .completed)
        let withSpanish = try await waitFor("subs", .completed)
        XCTAssertTrue(withSpanish.hasSubtitles)
        let spanish = try await client.subtitles(id: "subs")
        XCTAssertEqual(spanish.map(\.language), ["es"])
        XCTAssertTrue(exists(asset("subs") + "/subtitles/es/index.m3u8"))
        let spanishRequests = http.requests.filter { $0.path.hasPrefix("/ts/subs/es") && $0.path.hasSuffix(".vtt") }.count
        XCTAssertGreaterThan(spanishRequests, 0)

        let unknown = await assertFails(.invalidArgument) { try await self.client.addSubtitles(id: "subs", languages: ["fr"]) }
        XCTAssertTrue(unknown?.message.contains("'fr'") ?? false, "\(String(describing: unknown))")
        XCTAssertTrue(unknown?.message.contains("es") ?? false, "the message lists what the stream offers: \(String(describing: unknown))")
        let unchanged = try await client.getDownload(id: "subs")
        XCTAssertEqual(unchanged.state, .completed, "a refused language changes nothing")

        _ = try await client.addSubtitles(id: "subs", languages: ["en"])
        _ = try await waitFor("subs", .completed)
        let both = try await client.subtitles(id: "subs")
        XCTAssertEqual(both.map(\.language).sorted(), ["en", "es"])
        XCTAssertEqual(segmentRequests(), videoBefore, "no video segment is fetched again")
        XCTAssertEqual(http.requests.filter { $0.path.hasPrefix("/ts/subs/es") && $0.path.hasSuffix(".vtt") }.count, spanishRequests,
                       "subtitles already there are not fetched again")

        let removed = try await client.removeSubtitles(id: "subs", languages: ["es"])
        XCTAssertEqual(removed.state, .completed)
        let english = try await client.subtitles(id: "subs")
        XCTAssertEqual(english.map(\.language), ["en"])
        XCTAssertFalse(exists(asset("subs") + "/subtitles/es"))
        let master = try String(contentsOfFile: asset("subs") + "/master.m3u8", encoding: .utf8)
        XCTAssertFalse(master.contains("LANGUAGE=\"es\""), master)
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
        let out = try exportDir("subs")
        _ = try await client.export(id: "subs", to: out)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), ts.variants[1].frameCount)

        let last = try await client.removeSubtitles(id: "subs", languages: ["en"])
        XCTAssertFalse(last.hasSubtitles)
        let bare = try String(contentsOfFile: asset("subs") + "/master.m3u8", encoding: .utf8)
        XCTAssertFalse(bare.contains("SUBTITLES"), "no group is named once none is left:\n\(bare)")
        await assertFails(.invalidArgument) { try await self.client.removeSubtitles(id: "subs", languages: ["en"]) }
        http.serve(path: "/plain.bin", size: 10)
        _ = try await client.addDownload(AddDownloadRequest(id: "plain", uri: http.url("/plain.bin")))
        await assertFails(.failedPrecondition) { try await self.client.subtitles(id: "plain") }
    }

    func testCommandLinePlanAddSubtitlesAndExport() async throws {
        let ts = try serve().ts
        let url = http.url("/ts/" + ts.masterPath)
        let plan = try daemon.runCLI(["plan", url, "--json"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let info = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((info["variants"] as? [[String: Any]])?.compactMap { $0["height"] as? Int }, [144, 240, 360])
        XCTAssertEqual((info["subtitles"] as? [[String: Any]])?.compactMap { $0["language"] as? String }, ["en", "es"])
        let table = try daemon.runCLI(["plan", url])
        XCTAssertTrue(table.stdout.contains("640x360") && table.stdout.contains("AES-128"), table.stdout)

        let add = try daemon.runCLI(["add", url, "--id", "cli", "--max-height", "240", "--subtitles", "en", "--wait", "--json"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let last = try XCTUnwrap(add.stdout.split(separator: "\n").last)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        XCTAssertEqual(record["state"] as? String, "COMPLETED")
        XCTAssertEqual(record["hasSubtitles"] as? Bool, true)
        let subtitleSegments = (ts.seconds + HLSFixture.subtitleSegmentSeconds - 1) / HLSFixture.subtitleSegmentSeconds
        XCTAssertEqual(record["segmentsTotal"] as? Int, ts.variants[1].segmentCount + subtitleSegments, "video and English subtitle segments")
        XCTAssertTrue((record["quality"] as? String)?.hasPrefix("426x240") ?? false, "\(record)")

        let subtitles = try daemon.runCLI(["subtitles", "ls", "cli"])
        XCTAssertEqual(subtitles.status, 0, subtitles.stderr)
        XCTAssertTrue(subtitles.stdout.contains("subtitles/en/index.m3u8"), subtitles.stdout)
        let out = try exportDir("cli")
        let export = try daemon.runCLI(["export", "cli", out, "--decrypt"])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("decrypted"), export.stdout)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/master.m3u8"), ts.variants[1].frameCount)
        let badQuality = try daemon.runCLI(["add", url, "--quality", "ultra"])
        XCTAssertEqual(badQuality.status, 2, badQuality.stderr)
        XCTAssertTrue(badQuality.stderr.contains("ultra"), badQuality.stderr)
    }
}
