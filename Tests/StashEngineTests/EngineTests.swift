import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore
import StashTestSupport
import XCTest

@testable import StashEngine

/// The engine on its own, without a daemon or a socket: a real registry, real fetch workers
/// and a real HTTP server, driven through the engine's API as the request dispatcher does.
final class EngineTests: XCTestCase {
    private var dataDir = ""
    private var http: TestHTTPServer!
    private var engine: Engine!

    override func setUp() async throws {
        dataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-engine")
        http = try TestHTTPServer.start()
        engine = try await makeEngine()
    }

    override func tearDown() async throws {
        await engine?.shutdown()
        http?.stop()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    private func makeEngine() async throws -> Engine {
        let logger = Logger(label: "engine-test")
        let registry = try Registry(path: dataDir + "/stash.sqlite", logger: logger)
        let engine = Engine(
            dataDir: dataDir, socketPath: dataDir + "/unused.sock", registry: registry, fetch: FetchWorkers(logger: logger),
            keys: try KeyStore(directory: dataDir + "/keys"), config: DaemonConfig(), logger: logger)
        try await engine.start()
        return engine
    }

    /// The states a subscriber is told of, until `id` reaches `final`.
    private func states(of id: String, until final: DownloadState, in events: EventSubscription) async -> [DownloadState] {
        var seen: [DownloadState] = []
        for await event in events {
            guard case .stateChanged(let download, _) = event.kind, download.id == id else { continue }
            seen.append(download.state)
            if download.state == final { break }
        }
        return seen
    }

    func testABundleGoesThroughItsStatesAndEveryFileIsTheSource() async throws {
        for index in 0..<3 { http.serve(path: "/p\(index).bin", size: 20_000 + index, seed: UInt64(index + 1)) }
        let events = await engine.subscribe(ids: ["b"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        let specs = (0..<3).map { BundleFileSpec(url: http.url("/p\($0).bin"), path: "pages/\($0).bin") }
        let (added, created) = try await engine.add(id: "b", uri: "", files: specs, title: "chapter", sha256: "", headers: [])
        XCTAssertTrue(created)
        XCTAssertEqual(added.state, .queued)
        let seen = await states(of: "b", until: .completed, in: events)
        XCTAssertEqual(seen.first, .queued)
        XCTAssertEqual(seen.last, .completed)
        XCTAssertTrue(seen.contains(.preparing) || seen.contains(.downloading), "\(seen)")
        let done = try await engine.get(id: "b")
        XCTAssertEqual(done.filesDone, 3)
        for index in 0..<3 {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dataDir + "/assets/b/pages/\(index).bin"))
            XCTAssertEqual(bytes.count, 20_000 + index)
            XCTAssertEqual(bytes.first, TestBody.patternByte(at: 0, seed: UInt64(index + 1)))
        }
    }

    func testAPausedDownloadStaysPausedAcrossAnEngineRestartAndCompletesWhenResumed() async throws {
        // Slow enough that the pause comes while it transfers (200 KB/s: a quarter second).
        var route = TestRoute(body: .pattern(size: 50_000, seed: 1))
        route.bytesPerSecond = 200_000
        http.serve(path: "/f.bin", route: route)
        _ = try await engine.pause(id: try await engine.add(id: "f", uri: http.url("/f.bin"), title: "", sha256: "", headers: []).download.id)
        await engine.shutdown()
        engine = try await makeEngine()
        let restored = try await engine.get(id: "f")
        XCTAssertEqual(restored.state, .paused, "a paused download stays paused")
        let events = await engine.subscribe(ids: ["f"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        _ = try await engine.resume(id: "f")
        let seen = await states(of: "f", until: .completed, in: events)
        XCTAssertEqual(seen.last, .completed)
        let done = try await engine.get(id: "f")
        XCTAssertEqual(done.downloadedBytes, 50_000)
    }
}
