import Logging
import StashCore
import StashDesktop
import StashTestSupport
import XCTest

/// The watch over NetworkManager and UPower on a private bus with python3-dbusmock's templates.
final class DesktopWatchTests: XCTestCase {
    private let nm = DesktopService.networkManager
    private let upower = DesktopService.upower

    private func environment(_ bus: PrivateBus) -> [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": bus.address] }

    private func networkManager(on bus: PrivateBus, metered: String) async throws -> BusMock {
        let mock = try await BusMock.start("networkmanager", on: bus)
        // The template has no Metered: it is added as NetworkManager 1.x has it.
        try mock.addProperty(path: nm.path, interface: nm.interface, "Metered", metered)
        return mock
    }

    func testMeteredIsReadOnceThenFollowedFromTheChangeSignalWithoutPolling() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:uint32:1")
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertEqual(watch.conditions, DesktopConditions(metered: true))
        XCTAssertEqual(watch.seen["NetworkManager"], "metered")

        try mock.setProperty(path: nm.path, interface: nm.interface, "Metered", "variant:uint32:4")
        try await eventually("the watch to see guess-no") { !watch.conditions.metered }
        try mock.setProperty(path: nm.path, interface: nm.interface, "Metered", "variant:uint32:3")
        try await eventually("the watch to see guess-yes") { watch.conditions.metered }
        XCTAssertEqual(mock.calls().filter { $0.hasPrefix("Get ") }.count, 1, "\(mock.calls())")
    }

    func testThePropertiesAreReadAgainAfterAWake() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:uint32:2")
        let logind = try await BusMock.start("logind", on: bus)
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        func gets() -> Int { mock.calls().filter { $0.hasPrefix("Get \(self.nm.path) \(self.nm.interface).Metered") }.count }
        XCTAssertEqual(gets(), 1)
        try logind.send(path: "/org/freedesktop/login1", method: "org.freedesktop.DBus.Mock.AddMethod", [
            "string:org.freedesktop.login1.Manager", "string:Wake", "string:", "string:",
            "string:self.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [False])"])
        try logind.send(path: "/org/freedesktop/login1", method: "org.freedesktop.login1.Manager.Wake", [])
        try await eventually("Metered read again after the wake") { gets() == 2 }
    }

    func testOnBatteryIsFollowed() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await BusMock.start("upower", on: bus, parameters: #"{"OnBattery": true}"#)
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertEqual(watch.conditions, DesktopConditions(onBattery: true))
        try mock.setProperty(path: upower.path, interface: upower.interface, "OnBattery", "variant:boolean:false")
        try await eventually("the watch to see AC power") { !watch.conditions.onBattery }
        XCTAssertEqual(watch.seen["UPower"], "on AC power")
        XCTAssertEqual(watch.seen["NetworkManager"], "not on the system bus")
    }

    func testNoSystemBusIsSaidAndReadsAsNothingHolding() async throws {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-nobus")
        let watch = await DesktopWatch.start(
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(folder)/none"], logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertEqual(watch.conditions, DesktopConditions())
        XCTAssertEqual(watch.seen, ["NetworkManager": "no system bus", "UPower": "no system bus"])
    }

    func testAMeteredOfTheWrongTypeIsReportedAndReadAsNotMetered() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:string:yes")
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertFalse(watch.conditions.metered)
        XCTAssertEqual(watch.seen["NetworkManager"], "Metered has type s, expected u")
        // A right value later is taken.
        try mock.setProperty(path: nm.path, interface: nm.interface, "Metered", "variant:uint32:1")
        try await eventually("the watch to see metered") { watch.conditions.metered }
    }

    func testAServiceThatLeavesAndComesBackIsFollowed() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:uint32:1")
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertTrue(watch.conditions.metered)
        mock.stop()
        try await eventually("the watch to see NetworkManager leave") { watch.seen["NetworkManager"] == "left the system bus" }
        XCTAssertFalse(watch.conditions.metered)
        let again = try await networkManager(on: bus, metered: "variant:uint32:3")
        // The Metered added after the name came is read from its change signal or the read.
        try again.setProperty(path: nm.path, interface: nm.interface, "Metered", "variant:uint32:1")
        try await eventually("the watch to see it back, metered") { watch.conditions.metered }
    }

    func testAFloodOfSignalsLeavesTheWatchCurrentAndResponsive() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:uint32:2")
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        // 5,000 changes in one call, ending on "yes".
        let code = """
            for i in range(5000): self.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as', \
            ['org.freedesktop.NetworkManager', {'Metered': dbus.UInt32(2 - i % 2, variant_level=1)}, []])
            """
        try mock.send(path: nm.path, method: "org.freedesktop.DBus.Mock.AddMethod", [
            "string:org.freedesktop.NetworkManager", "string:Flood", "string:", "string:", "string:\(code)"])
        try mock.send(path: nm.path, method: "org.freedesktop.NetworkManager.Flood", [])
        try await eventually("the watch to see the flood's last value") { watch.conditions.metered }
        try mock.setProperty(path: nm.path, interface: nm.interface, "Metered", "variant:uint32:2")
        try await eventually("the watch to follow a change after the flood") { !watch.conditions.metered }
    }

    func testTheBusGoingAwayIsSaid() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await networkManager(on: bus, metered: "variant:uint32:1")
        let watch = await DesktopWatch.start(environment: environment(bus), logger: Logger(label: "test"))
        defer { watch.close() }
        XCTAssertTrue(watch.conditions.metered)
        bus.stop()
        mock.stop()
        try await eventually("the watch to see the bus gone") { watch.seen["NetworkManager"] == "the system bus went away" }
        XCTAssertFalse(watch.conditions.metered)
    }
}
