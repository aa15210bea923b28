import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore
import StashTestSupport
import XCTest

@testable import StashEngine

/// Removals of a download racing pauses, resumes, other cancels and new adds of the same id.
final class EngineRemovalTests: XCTestCase {
    private var dataDir = ""
    private var http: TestHTTPServer!
    private var engine: Engine!

    override func setUp() async throws {
        dataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-removal")
        http = try TestHTTPServer.start()
        let logger = Logger(label: "removal-test")
        let registry = try Registry(path: dataDir + "/stash.sqlite", logger: logger)
        engine = Engine(
            dataDir: dataDir, socketPath: dataDir + "/unused.sock", registry: registry, fetch: FetchWorkers(logger: logger),
            keys: try KeyStore(directory: dataDir + "/keys"), config: DaemonConfig(), logger: logger, clock: .system, diskWatch: DiskWatchSettings())
        try await engine.start()
    }

    override func tearDown() async throws {
        await engine?.shutdown()
        http?.stop()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    /// A bundle whose 12 files are fetched, created and renamed while the cancels come.
    private func bundleSpecs() -> [BundleFileSpec] {
        (0..<12).map { index in
            http.serve(path: "/page\(index)", size: 400_000, seed: UInt64(index + 1))
            http.update(path: "/page\(index)") { $0.bytesPerSecond = 4_000_000 }
            return BundleFileSpec(url: http.url("/page\(index)"), path: "pages/\(index).bin")
        }
    }

    /// Clients pause, resume, cancel and add the same downloads at once, round after round,
    /// as 50 clients did when 3 of 20,677 cancels answered INTERNAL ("could not delete …"):
    /// a stop chained on another was forgotten when the first ended, so a removal waited for
    /// nothing while resumed transfers still created files. Every answer here is OK or a
    /// refusal naming the state (NOT_FOUND, FAILED_PRECONDITION), never INTERNAL, and once the
    /// last cancel is done nothing of the downloads is left.
    func testConcurrentPausesResumesCancelsAndAddsNeverFailARemoval() async throws {
        let specs = bundleSpecs()
        let engine = self.engine!
        let ids = ["c17", "c18", "c19"]
        let failures = await withTaskGroup(of: [String].self) { group -> [String] in
            for lane in 0..<12 {
                group.addTask {
                    var failed: [String] = []
                    let id = ids[lane % ids.count]
                    for round in 0..<1500 {
                        do {
                            switch (lane / ids.count + round) % 6 {
                            case 0: _ = try await engine.add(AddRequest(id: id, uri: "", files: specs, force: true))
                            case 1, 3: _ = try await engine.pause(id: id)
                            case 2, 4: _ = try await engine.resume(id: id)
                            default: try await engine.cancel(id: id)
                            }
                        } catch let error as StashError where error.code != .internal {
                            continue
                        } catch {
                            failed.append("\(id), round \(round), lane \(lane): \(error)")
                        }
                    }
                    return failed
                }
            }
            var failed: [String] = []
            for await result in group { failed += result }
            return failed
        }
        XCTAssertEqual(failures, [])
        for id in ids {
            do {
                try await engine.cancel(id: id)
            } catch let error as StashError where error.code == .notFound {
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dataDir + "/assets/" + id), "\(id)'s folder is left")
            XCTAssertFalse(engine.has(id: id).exists, "\(id) is left")
        }
    }
}
