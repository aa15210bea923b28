import Foundation
import StashCore
import StashFetch
import StashKeys
import Synchronization
import XCTest

@testable import StashEngine

/// Replace of an HLS package: its playlists are read again with the record's choice into the
/// sibling folder, its AES-128 keys sealed beside the old copy's until the exchange.
final class EnginePackageReplaceTests: XCTestCase {
    private static func playlist(segments: Int) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"film.key\"\n"
            + (0..<segments).map { "#EXTINF:2.0,\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
    }

    private let oldKey = [UInt8](repeating: 1, count: 16)
    private let newKey = [UInt8](repeating: 2, count: 16)

    /// The server's playlist and key, changed by `serve`.
    private final class Server: Sendable {
        let state = Mutex<(segments: Int, key: [UInt8])>((3, []))
    }

    private func harness(_ server: Server) async throws -> EngineHarness {
        let harness = try await EngineHarness()
        harness.fetch.answerBodies { request in
            let (segments, key) = server.state.withLock { $0 }
            switch request.url {
            case "http://h.test/film.m3u8":
                return FetchedBody(bytes: Array(Self.playlist(segments: segments).utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
            case "http://h.test/film.key":
                return FetchedBody(bytes: key, effectiveURL: request.url, contentType: "application/octet-stream")
            default:
                throw DownloadError(.network, "\(request.url) cannot be reached")
            }
        }
        return harness
    }

    private func segmentURLs(_ count: Int) -> [String] { (0..<count).map { "http://h.test/seg\($0).ts" } }

    private func completedFilm(_ harness: EngineHarness, _ server: Server) async throws {
        server.state.withLock { $0 = (3, oldKey) }
        _ = try await harness.engine.add(AddRequest(id: "film", uri: "http://h.test/film.m3u8", hls: HLSOptions()))
        try await harness.eventually("the segments are fetched") { Set(harness.fetch.runningURLs) == Set(self.segmentURLs(3)) }
        for url in segmentURLs(3) { try await harness.complete(url) }
        try await harness.eventually("COMPLETED") { try await harness.stateOf("film") == .completed }
    }

    private func replace(_ harness: EngineHarness) async throws {
        let added = try await harness.engine.add(AddRequest(
            id: "film", uri: "http://h.test/film.m3u8", hls: HLSOptions(), replace: true))
        XCTAssertFalse(added.created)
        XCTAssertEqual(added.download.stateReason, EngineState.replacingReason)
    }

    private func key(_ harness: EngineHarness, _ id: String) throws -> [UInt8]? {
        try KeyStore(directory: harness.dataDir + "/keys").read(asset: "film", keyID: id)
    }

    func testAPackageIsPlannedAgainFetchedBesideTheOldOneAndItsKeysSwappedWithIt() async throws {
        let server = Server()
        let harness = try await harness(server)
        try await completedFilm(harness, server)
        let keyPaths = try await harness.record("film").hlsKeys
        let keyPath = try XCTUnwrap(keyPaths.first)
        XCTAssertEqual(try key(harness, keyPath), oldKey)

        server.state.withLock { $0 = (4, newKey) }
        try await replace(harness)
        try await harness.eventually("the new segments are fetched") { Set(harness.fetch.runningURLs) == Set(self.segmentURLs(4)) }
        let transfer = try XCTUnwrap(harness.fetch.transfer(segmentURLs(4)[3]))
        XCTAssertTrue(transfer.request.folder.hasSuffix("/assets/.replacing-film"), transfer.request.folder)
        XCTAssertEqual(try key(harness, keyPath), oldKey, "the old copy keeps its key until the exchange")
        XCTAssertEqual(try key(harness, ReplacementKeys.prefix + keyPath), newKey, "the new key is sealed beside it")
        let during = try await harness.record("film")
        XCTAssertEqual(during.filesTotal, 3, "the record is the old copy's")

        for url in segmentURLs(4) { try await harness.complete(url) }
        try await harness.eventually("the new copy swapped in") { try await harness.record("film").stateReason == EngineState.replacedReason }
        let record = try await harness.record("film")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.filesTotal, 4)
        XCTAssertEqual(try key(harness, keyPath), newKey)
        XCTAssertNil(try key(harness, ReplacementKeys.prefix + keyPath))
        let playlist = try String(contentsOfFile: harness.dataDir + "/assets/film/video/index.m3u8", encoding: .utf8)
        XCTAssertEqual(playlist.components(separatedBy: "#EXTINF").count - 1, 4, playlist)
        try await harness.eventually("the old copy deleted") { !FileManager.default.fileExists(atPath: harness.dataDir + "/assets/.replacing-film") }
        let report = try await harness.engine.maintenance.verify(deep: false, repair: false)
        XCTAssertEqual(report.findings.map(\.path), [])
        await harness.stop()
    }

    func testAFailedReplaceKeepsTheOldPackageAndItsKey() async throws {
        let server = Server()
        let harness = try await harness(server)
        try await completedFilm(harness, server)
        let keyPaths = try await harness.record("film").hlsKeys
        let keyPath = try XCTUnwrap(keyPaths.first)
        server.state.withLock { $0 = (4, newKey) }
        try await replace(harness)
        try await harness.eventually("the new segments are fetched") { harness.fetch.transfer(self.segmentURLs(4)[3]) != nil }
        harness.fetch.fail(segmentURLs(4)[2], "HTTP 403 from the fake")
        try await harness.eventually("the replace ended") { try await harness.record("film").stateReason.hasPrefix("the replace failed") }
        let record = try await harness.record("film")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.filesTotal, 3)
        XCTAssertTrue(record.stateReason.contains("HTTP 403 from the fake"), record.stateReason)
        try await harness.settle()
        XCTAssertEqual(try key(harness, keyPath), oldKey)
        XCTAssertNil(try key(harness, ReplacementKeys.prefix + keyPath), "the new key is deleted")
        await harness.stop()
    }

    func testAPlaylistThatCannotBeReadEndsTheReplace() async throws {
        let server = Server()
        let harness = try await harness(server)
        try await completedFilm(harness, server)
        server.state.withLock { $0 = (4, [1, 2, 3]) }
        try await replace(harness)
        try await harness.eventually("the replace ended") { try await harness.record("film").stateReason.hasPrefix("the replace failed") }
        let record = try await harness.record("film")
        XCTAssertEqual(record.state, .completed)
        XCTAssertTrue(record.stateReason.contains("exactly 16"), record.stateReason)
        await harness.stop()
    }

    func testARestartWhileFetchingDiscardsTheNewPackageAndItsKey() async throws {
        let server = Server()
        let harness = try await harness(server)
        try await completedFilm(harness, server)
        let keyPaths = try await harness.record("film").hlsKeys
        let keyPath = try XCTUnwrap(keyPaths.first)
        server.state.withLock { $0 = (4, newKey) }
        try await replace(harness)
        try await harness.eventually("the new segments are fetched") { harness.fetch.transfer(self.segmentURLs(4)[3]) != nil }
        XCTAssertEqual(try key(harness, ReplacementKeys.prefix + keyPath), newKey)
        try await harness.restart()
        try await harness.settle()
        let record = try await harness.record("film")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.filesTotal, 3)
        XCTAssertTrue(record.stateReason.hasPrefix("a replace was under way when stashd stopped"), record.stateReason)
        XCTAssertEqual(try key(harness, keyPath), oldKey)
        XCTAssertNil(try key(harness, ReplacementKeys.prefix + keyPath), "the new key is deleted")
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.dataDir + "/assets/.replacing-film"))
        await harness.stop()
    }

    func testAStopAfterTheExchangeSealsTheNewKeysAtStart() async throws {
        let harness = try await EngineHarness { dataDir, registry in
            let keys = try KeyStore(directory: dataDir + "/keys")
            try keys.write(asset: "film", keyID: "k.key", key: self.oldKey)
            try keys.write(asset: "film", keyID: ReplacementKeys.prefix + "k.key", key: self.newKey)
            var download = Download(
                id: "film", uri: "http://h.test/film.m3u8", state: .completed, assetPath: "assets/film", createdAt: Date(timeIntervalSince1970: 1),
                files: [DownloadFile(url: "http://h.test/seg0.ts", path: "video/seg0.ts", size: 10, downloadedBytes: 10, done: true)], hls: HLSOptions())
            download.hlsKeys = ["k.key"]
            download.stateReason = EngineState.swappingReason
            download.downloadedBytes = 10
            download.totalBytes = 10
            try await registry.save([download])
            for (folder, bytes) in [("/assets/film", 10), ("/assets/.replacing-film", 5)] {
                try FileManager.default.createDirectory(atPath: dataDir + folder + "/video", withIntermediateDirectories: true)
                XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + folder + "/video/seg0.ts", contents: Data(count: bytes)))
            }
            // Exchanged: the marker is in the asset folder.
            XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + "/assets/film/" + FolderSwap.marker, contents: Data()))
        }
        let record = try await harness.record("film")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.stateReason, EngineState.replacedReason)
        XCTAssertEqual(try key(harness, "k.key"), newKey)
        XCTAssertNil(try key(harness, ReplacementKeys.prefix + "k.key"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.dataDir + "/assets/.replacing-film"))
        await harness.stop()
    }

    /// A package with DRM stopped after the exchange: its licence key, sealed under its key id
    /// with the prefix, is sealed under its key id at start (a key path names it only through
    /// the record's licence key ids).
    func testAStopAfterTheExchangeSealsTheNewLicenceKeysAtStart() async throws {
        let kid = "EBESExQVFhcYGRobHB0eHw"
        let storeID = Download.licenseKeyStoreID(kid)
        let harness = try await EngineHarness { dataDir, registry in
            let keys = try KeyStore(directory: dataDir + "/keys")
            try keys.write(asset: "film", keyID: storeID, key: self.oldKey)
            try keys.write(asset: "film", keyID: ReplacementKeys.prefix + storeID, key: self.newKey)
            var download = Download(
                id: "film", uri: "http://h.test/film.m3u8", state: .completed, assetPath: "assets/film", createdAt: Date(timeIntervalSince1970: 1),
                files: [DownloadFile(url: "http://h.test/seg0.ts", path: "video/seg0.ts", size: 10, downloadedBytes: 10, done: true)], hls: HLSOptions())
            download.drm = DRMParams(licenseServer: "http://licence.test/license")
            download.hlsKeys = ["k.key"]
            download.licenseKeyIDs = ["k.key": kid]
            download.stateReason = EngineState.swappingReason
            download.downloadedBytes = 10
            download.totalBytes = 10
            try await registry.save([download])
            for (folder, bytes) in [("/assets/film", 10), ("/assets/.replacing-film", 5)] {
                try FileManager.default.createDirectory(atPath: dataDir + folder + "/video", withIntermediateDirectories: true)
                XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + folder + "/video/seg0.ts", contents: Data(count: bytes)))
            }
            XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + "/assets/film/" + FolderSwap.marker, contents: Data()))
        }
        let record = try await harness.record("film")
        XCTAssertEqual(record.stateReason, EngineState.replacedReason)
        XCTAssertEqual(try key(harness, storeID), newKey, "the new licence key under its key id")
        XCTAssertNil(try key(harness, ReplacementKeys.prefix + storeID))
        await harness.stop()
    }
}
