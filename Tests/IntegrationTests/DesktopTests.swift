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
        XCTAssertEqual(daemon.terminate(), 0, daemon.logTail())
    }

    func testARunningDownloadStopsWhenTheNetworkBecomesMeteredKeepingItsBytes() async throws {
        let bus = try await PrivateBus.start()
        let nm = try await BusMock.start("networkmanager", on: bus)
        try nm.addProperty(path: managerPath, interface: managerInterface, "Metered", "variant:uint32:2")
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        var route = TestRoute(body: .pattern(size: 400_000, seed: 40), etag: "\"movie-1\"")
        route.stallAfterBytes = 100_000
        route.stallTimes = 1
        http.serve(path: "/movie.bin", route: route)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertEqual(try daemon.runCLI(["config", "set", "network", "unmetered"]).status, 0)
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: http.url("/movie.bin")))
        // Stalled after its first 100,000 bytes (which the writer may still hold in memory).
        try await eventually("the download to run") { try await client.getDownload(id: "movie").state == .downloading }

        try nm.setProperty(path: managerPath, interface: managerInterface, "Metered", "variant:uint32:3")
        try await eventually("the download to wait with its bytes") {
            let download = try await client.getDownload(id: "movie")
            // Its part file holds what came before the stop (all of the 100,000 bytes but under
            // a load that delays them past the response's start).
            return download.state == .waitingForNetwork && download.downloadedBytes > 0
        }
        http.releaseStalls()
        try nm.setProperty(path: managerPath, interface: managerInterface, "Metered", "variant:uint32:4")
        try await eventually("the download to complete") { try await client.getDownload(id: "movie").state == .completed }
        let last = try XCTUnwrap(http.requests(for: "/movie.bin").last)
        XCTAssertNotNil(last.header("Range"), "the rest asked for from the part file")
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
    }

    func testOnBatteryADownloadThatPausesOnBatteryWaitsForACPower() async throws {
        let bus = try await PrivateBus.start()
        let upower = try await BusMock.start("upower", on: bus, parameters: #"{"OnBattery": true}"#)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.serve(path: "/lesson.bin", size: 30_000, seed: 38)
        http.serve(path: "/other.bin", size: 30_000, seed: 39)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        var lesson = AddDownloadRequest(id: "lesson", uri: http.url("/lesson.bin"))
        lesson.onBattery = .pause
        _ = try await client.addDownload(lesson)
        _ = try await client.addDownload(AddDownloadRequest(id: "other", uri: http.url("/other.bin")))
        try await eventually("the lesson to wait for AC power") {
            let download = try await client.getDownload(id: "lesson")
            return download.state == .waitingForNetwork && download.stateReason == "waiting for AC power"
        }
        try await eventually("the other to complete on battery") { try await client.getDownload(id: "other").state == .completed }
        let info = try await client.systemInfo()
        XCTAssertEqual(info.powerService, "on battery")
        try upower.setProperty(path: "/org/freedesktop/UPower", interface: "org.freedesktop.UPower", "OnBattery", "variant:boolean:false")
        try await eventually("the lesson to complete on AC power") { try await client.getDownload(id: "lesson").state == .completed }
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
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

/// logind's sleep lock while downloads run, with dbusmock's logind on a private bus.
final class SleepInhibitorTests: XCTestCase {
    private func inhibitors(_ logind: BusMock) throws -> String {
        let result = try DaemonProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/dbus-send"),
            arguments: ["--bus=\(logind.bus.address)", "--print-reply", "--dest=org.freedesktop.login1", "/org/freedesktop/login1",
                        "org.freedesktop.login1.Manager.ListInhibitors"])
        return result.stdout
    }

    func testTheLockIsTakenWhileADownloadRunsAndLetGoWhenNoneDoes() async throws {
        let bus = try await PrivateBus.start()
        let logind = try await BusMock.start("logind", on: bus)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        var route = TestRoute(body: .pattern(size: 400_000, seed: 36))
        route.stallAfterBytes = 100_000
        route.stallTimes = 1
        http.serve(path: "/long.bin", route: route)
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        let before = try await client.systemInfo()
        XCTAssertEqual(before.sleepInhibitor, "not held")

        _ = try await client.addDownload(AddDownloadRequest(id: "long", uri: http.url("/long.bin")))
        try await eventually("the sleep lock to be taken") { try await client.systemInfo().sleepInhibitor == "held (delay)" }
        let held = try inhibitors(logind)
        XCTAssertTrue(held.contains("\"stash: 1 download running\"") && held.contains("\"delay\""), held)
        XCTAssertTrue(logind.calls().contains { $0.hasPrefix("Inhibit \"sleep\" \"stash\"") }, "\(logind.calls())")

        // logind says the machine goes to sleep: the lock goes; after the wake it is taken again.
        for (name, value) in [("Sleep", "True"), ("Wake", "False")] {
            try logind.send(path: "/org/freedesktop/login1", method: "org.freedesktop.DBus.Mock.AddMethod", [
                "string:org.freedesktop.login1.Manager", "string:\(name)", "string:", "string:",
                "string:self.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [\(value)])"])
        }
        try logind.send(path: "/org/freedesktop/login1", method: "org.freedesktop.login1.Manager.Sleep", [])
        try await eventually("the lock to be let go for the sleep") { try !self.inhibitors(logind).contains("stash") }
        try logind.send(path: "/org/freedesktop/login1", method: "org.freedesktop.login1.Manager.Wake", [])
        try await eventually("the lock to be taken again after the wake") { try self.inhibitors(logind).contains("stash") }

        // inhibit-sleep: block takes a blocking lock instead, no lets go of it.
        XCTAssertEqual(try daemon.runCLI(["config", "set", "inhibit-sleep", "block"]).status, 0)
        try await eventually("a blocking lock") { try await client.systemInfo().sleepInhibitor == "held (block)" }
        XCTAssertTrue(try inhibitors(logind).contains("\"block\""))
        XCTAssertEqual(try daemon.runCLI(["config", "set", "inhibit-sleep", "no"]).status, 0)
        try await eventually("no lock") { try await client.systemInfo().sleepInhibitor == "not taken (inhibit-sleep no)" }
        XCTAssertFalse(try inhibitors(logind).contains("stash"))
        let wrong = try daemon.runCLI(["config", "set", "inhibit-sleep", "always"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("config 'inhibit-sleep': 'always' is not one of delay, block, no"), wrong.stderr)
        XCTAssertEqual(try daemon.runCLI(["config", "set", "inhibit-sleep", "delay"]).status, 0)
        try await eventually("the delay lock again") { try await client.systemInfo().sleepInhibitor == "held (delay)" }

        http.releaseStalls()
        try await eventually("the download to complete") { try await client.getDownload(id: "long").state == .completed }
        try await eventually("the sleep lock to be let go") { try await client.systemInfo().sleepInhibitor == "not held" }
        try await eventually("logind to list no lock of stash") { try !self.inhibitors(logind).contains("stash") }
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
    }
}

/// Desktop notifications with dbusmock's notification daemon on a private session bus.
final class NotificationTests: XCTestCase {
    private func notifies(_ mock: BusMock) -> [String] { mock.calls().filter { $0.hasPrefix("Notify ") } }

    func testACompletionIsToldWithTheTitleAndAGroupOnceWhenAllOfItIsDone() async throws {
        let session = try await PrivateBus.start()
        let notifications = try await BusMock.start("notification_daemon", on: session)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        for name in ["single", "p1", "p2"] { http.serve(path: "/\(name).bin", size: 5000, seed: 37) }
        let daemon = try await DaemonProcess.start(environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        // With notify none (the default), nothing is told.
        _ = try await client.addDownload(AddDownloadRequest(id: "quiet", uri: http.url("/single.bin"), title: "Quiet"))
        try await eventually("quiet to complete") { try await client.getDownload(id: "quiet").state == .completed }

        XCTAssertEqual(try daemon.runCLI(["config", "set", "notify", "all"]).status, 0)
        _ = try await client.addDownload(AddDownloadRequest(id: "single", uri: http.url("/single.bin"), title: "Chapter 12", force: true))
        try await eventually("the completion to be told") { self.notifies(notifications).count == 1 }
        XCTAssertEqual(notifies(notifications), [#"Notify "stash" 0 "" "Download complete" "Chapter 12" [] {} -1"#])

        XCTAssertEqual(try daemon.runCLI(["config", "set", "notify", "groups"]).status, 0)
        for name in ["p1", "p2"] {
            _ = try await client.addDownload(AddDownloadRequest(id: name, uri: http.url("/\(name).bin"), group: "one-piece"))
        }
        try await eventually("the group to be told") { self.notifies(notifications).count == 2 }
        try await eventually("both to complete") {
            let first = try await client.getDownload(id: "p1").state
            let second = try await client.getDownload(id: "p2").state
            return first == .completed && second == .completed
        }
        let info = try await client.systemInfo()
        XCTAssertTrue(info.notificationService.hasPrefix("sent"), info.notificationService)
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
        XCTAssertEqual(notifies(notifications).last, #"Notify "stash" 0 "" "Downloads complete" "one-piece: 2 complete" [] {} -1"#)
        XCTAssertEqual(notifies(notifications).count, 2, "the group once: \(notifies(notifications))")
    }
}
