import Logging
import StashDesktop
import StashTestSupport
import XCTest

/// The connection itself against hostile peers.
final class BusConnectionTests: XCTestCase {
    /// A service that exits while a call to it is pending: the call fails at once with the
    /// bus's error, the connection stays usable.
    func testAServiceThatVanishesMidCallFailsTheCallNotTheConnection() async throws {
        let bus = try await PrivateBus.start()
        let mock = try await BusMock.start("networkmanager", on: bus)
        try mock.send(path: "/org/freedesktop/NetworkManager", method: "org.freedesktop.DBus.Mock.AddMethod", [
            "string:org.freedesktop.NetworkManager", "string:Vanish", "string:", "string:u", "string:import os; os._exit(0)"])
        let connection = try BusConnection(kind: .system, address: bus.address, logger: Logger(label: "test"))
        defer { connection.close() }
        let started = ContinuousClock.now
        do {
            let answer: UInt32 = try await connection.call(
                destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                interface: "org.freedesktop.NetworkManager", member: "Vanish", reply: { try $0.readUInt32() })
            XCTFail("a reply from a service that exited: \(answer)")
        } catch let error as BusError {
            XCTAssertEqual(error.call, "sd_bus_call")
            XCTAssertNotNil(error.name, "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4), "not the call's timeout")
        let owned = try await connection.hasOwner("org.freedesktop.NetworkManager")
        XCTAssertFalse(owned)
        XCTAssertTrue(connection.isOpen)
    }

    /// Closed and let go, a connection leaves no descriptor open: its socket closes on its
    /// thread, its wake-up pipe when the last reference goes.
    func testAClosedConnectionLeavesNoDescriptorOpen() async throws {
        let bus = try await PrivateBus.start()
        let before = OpenDescriptors.now()
        var connection: BusConnection? = try BusConnection(kind: .session, address: bus.address, logger: Logger(label: "test"))
        let owned = try await connection?.hasOwner("org.example.Nobody")
        XCTAssertEqual(owned, false)
        let its = OpenDescriptors.now().subtracting(before).filter { $0.contains("pipe:") || $0.contains("socket:") }
        XCTAssertGreaterThanOrEqual(its.count, 3, "its socket and both ends of its pipe: \(its)")
        connection?.close()
        connection = nil
        try await eventually("its descriptors closed: \(its.intersection(OpenDescriptors.now()))") { its.isDisjoint(with: OpenDescriptors.now()) }
    }
}
