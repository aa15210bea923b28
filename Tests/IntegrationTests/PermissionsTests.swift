import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// The data dir and the registry (which holds header values and licence tokens) are private
/// whatever modes they had; a socket directory stash did not create is never changed; secrets
/// never reach the log.
final class PermissionsTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--log-level", "trace"] }

    private func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    func testLooseDataDirAndRegistryAreTightenedAtStart() async throws {
        _ = try await client.addDownload(AddDownloadRequest(id: "a", uri: http.url("/missing"), headers: [HTTPHeader(name: "X-Api-Key", value: "k")]))
        XCTAssertEqual(daemon.terminate(), 0)
        let registry = daemon.dataDir + "/stash.sqlite"
        XCTAssertEqual(chmod(daemon.dataDir, 0o755), 0)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: registry + suffix) {
            XCTAssertEqual(chmod(registry + suffix, 0o644), 0)
        }
        try await daemon.restart()
        try await reconnect()
        XCTAssertEqual(mode(daemon.dataDir), 0o700)
        XCTAssertEqual(mode(registry), 0o600)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: registry + suffix) {
            XCTAssertEqual(mode(registry + suffix), 0o600, suffix)
        }
    }

    func testANewRegistryIsBornPrivate() async throws {
        let registry = daemon.dataDir + "/stash.sqlite"
        XCTAssertEqual(mode(daemon.dataDir), 0o700)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: registry + suffix) {
            XCTAssertEqual(mode(registry + suffix), 0o600, suffix)
        }
    }

    func testAnExistingSocketDirectoryKeepsItsMode() async throws {
        let home = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        XCTAssertEqual(chmod(home, 0o755), 0)
        let other = try await DaemonProcess.start(socketPath: home + "/x.sock")
        defer { _ = other.terminate() }
        XCTAssertEqual(mode(home), 0o755, "stash must not chmod a directory it did not create")
        let second = try await StashClient.connect(socketPath: other.socketPath, clientName: "perm")
        _ = try await second.listDownloads()
        await second.close()
    }

    func testASocketDirectoryOthersMayWriteInIsRefused() async throws {
        let shared = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-shared")
        defer { try? FileManager.default.removeItem(atPath: shared) }
        XCTAssertEqual(chmod(shared, 0o777), 0)
        do {
            let other = try await DaemonProcess.start(socketPath: shared + "/x.sock")
            _ = other.terminate()
            XCTFail("stashd started with its socket in a directory anyone may write in")
        } catch let error as DaemonProcessError {
            XCTAssertTrue(error.description.contains("others may write in it"), error.description)
        }
        XCTAssertEqual(mode(shared), 0o777)
    }

    func testHeaderValuesAndTokensNeverReachTheLog() async throws {
        http.serve(path: "/f.bin", size: 10_000)
        let secret = "s3cr3t-token-\(UUID().uuidString)"
        _ = try await client.addDownload(AddDownloadRequest(
            id: "h", uri: http.url("/f.bin"), headers: [HTTPHeader(name: "Authorization", value: "Bearer \(secret)"), HTTPHeader(name: "X-Api-Key", value: secret)]))
        _ = try await waitFor("h", .completed)
        http.serve(path: "/gone.bin", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 403; return route }())
        _ = try await client.addDownload(AddDownloadRequest(id: "g", uri: http.url("/gone.bin"), headers: [HTTPHeader(name: "X-Api-Key", value: secret)]))
        _ = try await waitFor("g", .failed)
        XCTAssertEqual(http.requests(for: "/f.bin").first?.header("X-Api-Key"), secret, "the header was sent")
        XCTAssertFalse(daemon.log().contains(secret), "a header value is in the daemon's log")
    }

    func testTokensInSignedURLsNeverReachTheLog() async throws {
        let secret = "sig-\(UUID().uuidString)"
        http.serve(path: "/signed.bin", size: 10_000)
        http.serve(path: "/denied.bin", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 403; return route }())
        _ = try await client.addDownload(AddDownloadRequest(id: "ok", uri: http.url("/signed.bin?token=\(secret)")))
        _ = try await client.addDownload(AddDownloadRequest(id: "no", uri: http.url("/denied.bin?token=\(secret)&exp=1")))
        _ = try await waitFor("ok", .completed)
        let failed = try await waitFor("no", .failed)
        XCTAssertTrue(failed.error?.message.contains(secret) ?? false, "the app's own record keeps the URL it gave")
        let log = daemon.log()
        XCTAssertTrue(log.contains("denied.bin?…"), "the failure is logged, naming the file")
        XCTAssertFalse(log.contains(secret), "a URL's query is in the daemon's log")
    }
}
