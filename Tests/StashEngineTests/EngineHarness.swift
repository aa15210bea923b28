import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore
import StashTestSupport
import Synchronization
import XCTest

@testable import StashEngine

/// A real `Engine` over a temporary data dir and a real SQLite registry, with the fetch
/// service faked (`FakeFetch`: transfers do what the test says), the clock manual and the
/// free space set by the test. Each step is driven to its end (`settle`), so a test of
/// scheduling, retries or the crash guard runs in milliseconds and in the same order every time.
final class EngineHarness {
    let dataDir: String
    let fetch = FakeFetch()
    let clock = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
    private let free = FreeSpace(1 << 40)
    private let online = Reachable()
    private(set) var engine: Engine!
    private let config: DaemonConfig
    private static let logger = Logger(label: "engine-harness")

    /// An engine over a new data dir; `prepare` may write its registry and flight log first.
    init(config: DaemonConfig = DaemonConfig(), prepare: (_ dataDir: String, _ registry: Registry) async throws -> Void = { _, _ in }) async throws {
        dataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-harness")
        self.config = config
        try await prepare(dataDir, try Registry(path: dataDir + "/stash.sqlite", logger: Self.logger))
        try await startEngine()
    }

    private func startEngine() async throws {
        engine = Engine(
            dataDir: dataDir, socketPath: dataDir + "/unused.sock", registry: try Registry(path: dataDir + "/stash.sqlite", logger: Self.logger),
            fetch: fetch, keys: try KeyStore(directory: dataDir + "/keys"), config: config, logger: Self.logger, clock: clock.clock,
            network: NetworkMonitor { [online] _ in online.value.withLock { $0 } }, diskWatch: DiskWatchSettings(), disk: Self.gauge(free: free, assetsDir: dataDir + "/assets"))
        try await engine.start()
        try await settle()
    }

    /// A clean stop and a new engine over the same data dir, fetch service and clock.
    func restart() async throws {
        await engine.shutdown()
        try await startEngine()
    }

    private static func gauge(free: FreeSpace, assetsDir: String) -> DiskGauge {
        let system = DiskGauge.system(assetsDir: assetsDir)
        return DiskGauge(freeBytes: { free.read() }, fileSize: system.fileSize)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    /// Free bytes the engine reads for the disk holding the assets.
    func setFree(_ bytes: Int64) {
        free.set(bytes)
    }

    /// Whether the engine finds a host reachable (every host: true at first).
    func setOnline(_ value: Bool) {
        online.value.withLock { $0 = value }
    }

    func stop() async {
        await engine.shutdown()
    }

    /// Lets the engine take in every fetch event sent so far, finish tearing down what it
    /// stopped, and commit what it decided.
    func settle() async throws {
        try await engine.settle()
    }

    /// A single-file download of `url` (default: one of its own per id).
    @discardableResult
    func add(_ id: String, url: String? = nil) async throws -> Download {
        let added = try await engine.add(AddRequest(id: id, uri: url ?? Self.url(id)))
        try await settle()
        return added.download
    }

    @discardableResult
    func addBundle(_ id: String, urls: [String]) async throws -> Download {
        let specs = urls.enumerated().map { BundleFileSpec(url: $0.element, path: "f\($0.offset).bin") }
        let added = try await engine.add(AddRequest(id: id, uri: "", files: specs))
        try await settle()
        return added.download
    }

    static func url(_ id: String, host: String = "h.test") -> String { "http://\(host)/\(id).bin" }

    func record(_ id: String) async throws -> Download {
        try await engine.get(id: id)
    }

    func stateOf(_ id: String) async throws -> DownloadState {
        try await engine.get(id: id).state
    }

    /// The fetch service's transfer of `url` completes with `bytes` bytes, and the engine
    /// takes it in.
    func complete(_ url: String, bytes: Int64 = 1000) async throws {
        try fetch.complete(url, bytes: bytes)
        try await settle()
    }

    /// Waits (polling, 20 s at most) for what the engine does off its own actor: a bundle's
    /// folder sync, a timer's wake-up.
    func eventually(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            try await settle()
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        XCTFail("never: \(what)", file: file, line: line)
    }
}

/// The free space a harness sets, read from the gauge's closure.
private final class FreeSpace: Sendable {
    private let bytes: Mutex<Int64>
    init(_ bytes: Int64) { self.bytes = Mutex(bytes) }
    func read() -> Int64 { bytes.withLock { $0 } }
    func set(_ value: Int64) { bytes.withLock { $0 = value } }
}

/// Whether hosts can be reached, as the harness's network monitor answers.
private final class Reachable: Sendable {
    let value = Mutex(true)
}

extension Engine {
    /// Licence releases not yet acknowledged, and whether a task is sending them.
    func outboxState() -> (releases: Int, attempts: [Int], sending: Bool) {
        (licenses.outbox.kept.count, licenses.outbox.kept.map(\.attempts), licenses.outbox.isSending)
    }

    /// Downloads whose licence is being renewed.
    func renewals() -> Set<String> {
        state.licenseSchedule.renewing
    }

    /// The engine's own record of `id`, committed or not.
    func live(_ id: String) -> Download? {
        entries[id]?.download
    }

    /// Takes in the fetch events waiting, waits for the teardowns under way and for every
    /// commit queued so far.
    func settle() async throws {
        handleNotices()
        for teardown in teardowns.all { await teardown.value }
        handleNotices()
        try await commits.submit(nil, event: nil).wait()
    }
}
