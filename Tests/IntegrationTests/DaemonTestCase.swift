import StashCrypto
import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// A real stashd on a private socket and data dir, a real HTTP server, and a client: the
/// fixture of every socket-level test.
class DaemonTestCase: XCTestCase {
    var http: TestHTTPServer!
    var daemon: DaemonProcess!
    var client: StashClient!

    /// Extra stashd flags for a test class.
    var daemonArguments: [String] { ["--log-level", "debug"] }

    /// Settings applied before each test. Short retry delays keep fault tests quick; the
    /// values are the daemon's, not the test's.
    var fixtureConfig: [(key: String, value: String)] {
        [(key: "retry-base-delay-ms", value: "50"), (key: "retry-max-delay-ms", value: "400")]
    }

    override func setUp() async throws {
        http = try TestHTTPServer.start()
        daemon = try await DaemonProcess.start(extraArguments: daemonArguments)
        client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        if !fixtureConfig.isEmpty { _ = try await client.setConfig(fixtureConfig) }
    }

    override func tearDown() async throws {
        await client?.close()
        if let daemon, daemon.isRunning {
            let status = daemon.terminate()
            XCTAssertEqual(status, 0, "stashd exits 0 on SIGTERM; log:\n\(daemon.logTail())")
        }
        // Keep the data dir of a failed test for a look; the others would fill /tmp over runs.
        // (Not `hasSucceeded`: it stays false until the run has stopped, after tearDown.)
        if let daemon, !daemon.isRunning {
            if let testRun, testRun.totalFailureCount == 0 {
                try? FileManager.default.removeItem(atPath: daemon.dataDir)
            } else {
                DaemonProcess.keepTemporaryDirectory(daemon.dataDir)
            }
        }
        http?.stop()
    }

    /// Reconnects after the daemon was restarted.
    func reconnect() async throws {
        await client?.close()
        client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
    }

    /// Polls until the download reaches `state` (or a terminal state it was not meant to).
    @discardableResult
    func waitFor(_ id: String, _ state: DownloadState, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) async throws -> Download {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last: Download?
        while ContinuousClock.now < deadline {
            let download = try await client.getDownload(id: id)
            last = download
            if download.state == state { return download }
            if download.state.isTerminal && download.state != state {
                XCTFail("\(id) reached \(download.state.name) (error: \(download.error?.message ?? "none")) waiting for \(state.name)", file: file, line: line)
                return download
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("\(id) still \(last?.state.name ?? "?") after \(timeout) s waiting for \(state.name); log:\n\(daemon.logTail(2000))", file: file, line: line)
        throw CancellationError()
    }

    /// Polls until `condition` holds for the download.
    func waitUntil(_ id: String, timeout: TimeInterval = 30, _ condition: (Download) -> Bool) async throws -> Download {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last: Download?
        while ContinuousClock.now < deadline {
            let download = try await client.getDownload(id: id)
            if condition(download) { return download }
            last = download
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("condition on \(id) not met within \(timeout) s; it is \(last?.state.name ?? "?") (\(last?.stateReason ?? "")); log:\n\(daemon.logTail(2000))")
        throw CancellationError()
    }

    /// Adds `count` slow downloads, waits until every one completed, and returns the most
    /// downloads seen active at once.
    func downloadThrottled(count: Int, size: Int, file: StaticString = #filePath, line: UInt = #line) async throws -> Int {
        for index in 0..<count {
            http.serve(path: "/slow\(index)", size: size, seed: UInt64(index))
            http.update(path: "/slow\(index)") { $0.bytesPerSecond = 1_000_000 }
            _ = try await client.addDownload(AddDownloadRequest(id: "slow\(index)", uri: http.url("/slow\(index)")))
        }
        var peak = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let all = try await client.allDownloads()
            peak = max(peak, all.filter { $0.state.isActive }.count)
            if all.allSatisfy({ $0.state == .completed }) { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let states = try await client.allDownloads().map(\.state)
        XCTAssertEqual(states, Array(repeating: .completed, count: count), file: file, line: line)
        return peak
    }

    func sha256Hex(ofFile path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return SHA256.hex(SHA256.hash(Array(data)))
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Asserts that a client call fails with `code`, and returns the error for more checks.
    @discardableResult
    func assertFails<T>(_ code: StashError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T) async -> StashError? {
        do {
            _ = try await body()
            XCTFail("expected \(code.name)", file: file, line: line)
        } catch let error as StashError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected StashError \(code.name), got \(error)", file: file, line: line)
        }
        return nil
    }
}
