import Foundation
import StashClient
import StashTestSupport
import XCTest

/// A daemon whose data dir (or a folder in it) is a small tmpfs, so a full disk is real.
/// Mounting needs root (CAP_SYS_ADMIN); elsewhere the tests are skipped.
class SmallDiskTestCase: DaemonTestCase {
    private(set) var dataDir = ""
    private var small: SmallDisk?

    /// Where the tmpfs goes, relative to the data dir ("" for the data dir itself), and its size.
    var smallDisk: (relativePath: String, bytes: Int) { ("", 8 << 20) }

    override func setUp() async throws {
        dataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-small-disk")
        let mountPoint = smallDisk.relativePath.isEmpty ? dataDir : dataDir + "/" + smallDisk.relativePath
        small = try SmallDisk.mount(at: mountPoint, bytes: smallDisk.bytes)
        if small == nil { throw XCTSkip("mounting a tmpfs needs root (CAP_SYS_ADMIN)") }
        http = try TestHTTPServer.start()
        daemon = try await DaemonProcess.start(dataDir: dataDir, extraArguments: ["--storage-reserve", "0", "--log-level", "debug"])
        client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        _ = try await client.setConfig(fixtureConfig)
    }

    override func tearDown() async throws {
        try await super.tearDown()
        small?.unmount()
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}
