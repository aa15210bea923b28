import Foundation
import Logging
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// A real test server, a temp folder and fetch workers per test.
class FetchTestCase: XCTestCase {
    var server: TestHTTPServer!
    var workers: FetchWorkers!
    var folder: String!

    /// Fast retries so failure paths stay quick.
    let quickRetry = RetryPolicy(maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 5_000)

    /// Quiet unless STASH_TEST_DEBUG is set.
    func makeLogger() -> Logger {
        var logger = Logger(label: "stash.fetch.tests")
        logger.logLevel = ProcessInfo.processInfo.environment["STASH_TEST_DEBUG"] == nil ? .critical : .debug
        return logger
    }

    override func setUp() async throws {
        server = try TestHTTPServer.start()
        workers = FetchWorkers(logger: makeLogger())
        folder = NSTemporaryDirectory() + "stash-fetch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await workers.shutdown()
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A request for `<folder>/asset/sub/<name>`: the asset's folder does not exist yet, so
    /// every transfer also creates its folders.
    func request(_ path: String, name: String = "file.bin", sha256: String = "", in assetFolder: String? = nil) -> FetchRequest {
        FetchRequest(
            url: server.url(path), folder: assetFolder ?? "\(folder!)/asset", relativePath: "sub/\(name)",
            expectedSHA256: sha256, retry: quickRetry, lowSpeedLimit: 1, lowSpeedTime: 30)
    }

    /// Starts the transfer and waits for its final event.
    @discardableResult
    func fetch(_ request: FetchRequest, timeout: TimeInterval = 30, on workers: FetchWorkers? = nil) async -> EventRecorder {
        let recorder = EventRecorder()
        (workers ?? self.workers).start(request, events: recorder.handler)
        await fulfillment(of: [recorder.finished], timeout: timeout)
        return recorder
    }

    func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
