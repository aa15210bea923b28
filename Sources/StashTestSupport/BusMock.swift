import Foundation
import Glibc
import Logging
import StashDesktop

/// A python3-dbusmock template (`networkmanager`, `upower`, `logind`, `notification_daemon`)
/// serving its name on a `PrivateBus`, logging every call it gets (`calls`).
package final class BusMock: @unchecked Sendable {
    package let name: String
    package let bus: PrivateBus
    private let process: Process
    private let logPath: String

    private init(name: String, bus: PrivateBus, process: Process, logPath: String) {
        self.name = name
        self.bus = bus
        self.process = process
        self.logPath = logPath
    }

    deinit { stop() }

    /// The bus name each template owns.
    package static func busName(template: String) -> String {
        switch template {
        case "networkmanager": return "org.freedesktop.NetworkManager"
        case "upower": return "org.freedesktop.UPower"
        case "logind": return "org.freedesktop.login1"
        case "notification_daemon": return "org.freedesktop.Notifications"
        default: return template
        }
    }

    /// Starts the template on `bus` and waits (with a deadline) until its name has an owner.
    /// Fails, saying what to install, when python3-dbusmock is missing.
    package static func start(
        _ template: String, on bus: PrivateBus, parameters: String? = nil, timeout: Duration = .seconds(20)
    ) async throws -> BusMock {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-mock")
        let logPath = PrivateBus.createLog(folder + "/calls.log")
        let process = Process()
        // Debian's python3, which sees the apt package (a pyenv python3 earlier on PATH does not).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // The same bus under both names: the template picks the one it lives on.
        process.arguments = ["-m", "dbusmock", "--template", template, "-l", logPath] + (parameters.map { ["-p", $0] } ?? [])
        process.environment = ProcessInfo.processInfo.environment.merging([
            "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: PrivateBus.createLog(folder + "/stderr.log")))
        try process.run()
        let mock = BusMock(name: busName(template: template), bus: bus, process: process, logPath: logPath)
        var logger = Logger(label: "stash.test-mock")
        logger.logLevel = .critical
        let connection = try BusConnection(kind: .session, address: bus.address, logger: logger)
        defer { connection.close() }
        try await eventually("dbusmock's \(template) to own \(mock.name)", timeout: timeout) {
            guard process.isRunning else {
                let stderr = (try? String(contentsOfFile: folder + "/stderr.log", encoding: .utf8)) ?? ""
                if stderr.contains("No module named") {
                    throw WaitTimeout("python3-dbusmock is not installed: apt-get install python3-dbusmock (make deps)\n\(stderr)")
                }
                throw WaitTimeout("dbusmock's \(template) exited: \(stderr)")
            }
            return try await connection.hasOwner(mock.name)
        }
        return mock
    }

    /// The calls the mock got, one line each (`Get /org/… org.freedesktop.NetworkManager.Metered`,
    /// `Inhibit "sleep" …`), in order.
    package func calls() -> [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            // Each line starts with the call's time.
            line.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
        }
    }

    /// Calls a method with dbus-send's typed arguments (`string:x`, `variant:uint32:1`).
    package func send(path: String, method: String, _ arguments: [String]) throws {
        let result = try DaemonProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/dbus-send"),
            arguments: ["--bus=\(bus.address)", "--print-reply", "--dest=\(name)", path, method] + arguments)
        guard result.status == 0 else { throw WaitTimeout("dbus-send \(method) failed: \(result.stderr)") }
    }

    /// Sets a property as the service would change it, with its PropertiesChanged signal.
    package func setProperty(path: String, interface: String, _ property: String, _ value: String) throws {
        try send(path: path, method: "org.freedesktop.DBus.Properties.Set", ["string:\(interface)", "string:\(property)", value])
    }

    /// Adds a property the template lacks (NetworkManager's `Metered`).
    package func addProperty(path: String, interface: String, _ property: String, _ value: String) throws {
        try send(path: path, method: "org.freedesktop.DBus.Mock.AddProperty", ["string:\(interface)", "string:\(property)", value])
    }

    /// Stops the service: its name leaves the bus.
    package func stop() {
        guard process.isRunning else { return }
        // SIGKILL: the child inherits the test runner's blocked signals, SIGTERM among them.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
