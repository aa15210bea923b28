import Foundation
import StashClient
import StashTestSupport
import XCTest

/// The desktop's facts end to end: a real stashd on a private "system" bus where
/// python3-dbusmock plays NetworkManager, fetching from a real HTTP server.
final class DesktopTests: XCTestCase {
    private let managerPath = "/org/freedesktop/NetworkManager"
    private let managerInterface = "org.freedesktop.NetworkManager"

    func testAnUnmeteredOnlyDownloadWaitsWhileMeteredAndCompletesFromTheChangeSignal() async throws {
        let bus = try await PrivateBus.start()
        let nm = try await BusMock.start("networkmanager", on: bus)
        try nm.addProperty(path: managerPath, interface: managerInterface, "Metered", "variant:uint32:1")
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.serve(path: "/chapter.bin", size: 100_000, seed: 32)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let set = try daemon.runCLI(["config", "set", "network", "unmetered"])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(set.stdout, "network = unmetered\n")

        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        _ = try await client.addDownload(AddDownloadRequest(id: "chapter", uri: http.url("/chapter.bin")))
        try await eventually("the download to wait for an unmetered network") {
            let download = try await client.getDownload(id: "chapter")
            return download.state == .waitingForNetwork && download.stateReason == "waiting for an unmetered network"
        }
        XCTAssertEqual(http.requests(for: "/chapter.bin").count, 0, "nothing fetched while metered")
        let info = try await client.systemInfo()
        XCTAssertTrue(info.metered)
        XCTAssertEqual(info.networkService, "metered")
        let shown = try daemon.runCLI(["info"])
        XCTAssertTrue(shown.stdout.contains("network (NetworkManager): metered\n"), shown.stdout)

        try nm.setProperty(path: managerPath, interface: managerInterface, "Metered", "variant:uint32:2")
        try await eventually("the download to complete once the network is not metered") {
            try await client.getDownload(id: "chapter").state == .completed
        }
        // Read once at the start; the change came from the signal, not from polling.
        XCTAssertEqual(nm.calls().filter { $0.hasPrefix("Get \(managerPath) \(managerInterface).Metered") }.count, 1, "\(nm.calls())")
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0, daemon.log().suffix(3000).description)
    }

    func testWithNoBusAtAllTheDaemonDownloadsAsBeforeAndSaysSo() async throws {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-nobus")
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.serve(path: "/page.bin", size: 10_000, seed: 33)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(folder)/no-bus"])
        XCTAssertEqual(try daemon.runCLI(["config", "set", "network", "unmetered"]).status, 0)
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        _ = try await client.addDownload(AddDownloadRequest(id: "page", uri: http.url("/page.bin")))
        try await eventually("the download to complete") { try await client.getDownload(id: "page").state == .completed }
        let info = try await client.systemInfo()
        XCTAssertFalse(info.metered)
        XCTAssertEqual(info.networkService, "no system bus")
        XCTAssertEqual(info.powerService, "no system bus")
        XCTAssertEqual(daemon.log().components(separatedBy: "no system bus").count - 1, 1, "said once in the log")
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
    }
}

/// A download's own rules from the CLI: "allow this one on a metered network".
final class DesktopRuleCLITests: XCTestCase {
    func testTheCLIAddsAndSetsADownloadsOwnNetworkRule() async throws {
        let bus = try await PrivateBus.start()
        let nm = try await BusMock.start("networkmanager", on: bus)
        try nm.addProperty(path: "/org/freedesktop/NetworkManager", interface: "org.freedesktop.NetworkManager", "Metered", "variant:uint32:1")
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.serve(path: "/mine.bin", size: 20_000, seed: 34)
        http.serve(path: "/later.bin", size: 20_000, seed: 35)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertEqual(try daemon.runCLI(["config", "set", "network", "unmetered"]).status, 0)

        let add = try daemon.runCLI(["add", "--id", "mine", "--network", "any", "--wait", http.url("/mine.bin")])
        XCTAssertEqual(add.status, 0, add.stderr)
        let shown = try daemon.runCLI(["show", "mine", "--json"])
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(record["network"] as? String, "any")
        XCTAssertEqual(record["state"] as? String, "COMPLETED")

        XCTAssertEqual(try daemon.runCLI(["add", "--id", "later", http.url("/later.bin")]).status, 0)
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        try await eventually("later to wait") { try await client.getDownload(id: "later").state == .waitingForNetwork }
        let set = try daemon.runCLI(["set", "later", "--network", "any"])
        XCTAssertEqual(set.status, 0, set.stderr)
        try await eventually("later to complete") { try await client.getDownload(id: "later").state == .completed }

        let wrong = try daemon.runCLI(["set", "later", "--network", "cellular"])
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("--network: 'cellular' is not one of any, unmetered"), wrong.stderr)
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
    }
}
