import Foundation
import Glibc
import Logging
import StashDesktop

/// A private `dbus-daemon` for one test, listening on a socket in a temporary folder: the
/// tests' "system" and session buses, so they never touch the machine's own. Stopped with
/// `stop` (or when released).
package final class PrivateBus: @unchecked Sendable {
    /// `unix:path=…`, for `DBUS_SYSTEM_BUS_ADDRESS` or `DBUS_SESSION_BUS_ADDRESS`.
    package let address: String
    private let process: Process
    private let folder: String

    private init(address: String, process: Process, folder: String) {
        self.address = address
        self.process = process
        self.folder = folder
    }

    deinit { stop() }

    /// Starts the bus and waits (with a deadline) until it accepts a client.
    package static func start(timeout: Duration = .seconds(20)) async throws -> PrivateBus {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-bus")
        let socket = folder + "/bus"
        // A session bus's rules (any name may be owned, any message sent) on our own socket.
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(folder)/bus.conf", "--nofork", "--nopidfile", "--nosyslog"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: createLog(folder + "/bus.log")))
        do {
            try process.run()
        } catch {
            throw WaitTimeout("cannot start /usr/bin/dbus-daemon (\(error)): install dbus-daemon (make deps)")
        }
        let bus = PrivateBus(address: "unix:path=\(socket)", process: process, folder: folder)
        var logger = Logger(label: "stash.test-bus")
        logger.logLevel = .critical
        try await eventually("dbus-daemon to accept clients at \(socket)", timeout: timeout) {
            guard process.isRunning else {
                throw WaitTimeout("dbus-daemon exited: \((try? String(contentsOfFile: folder + "/bus.log", encoding: .utf8)) ?? "")")
            }
            guard let connection = try? BusConnection(kind: .session, address: bus.address, logger: logger) else { return false }
            connection.close()
            return true
        }
        return bus
    }

    /// Stops the bus: every client's connection ends, as when the machine's bus goes away.
    package func stop() {
        guard process.isRunning else { return }
        // SIGKILL: the child inherits the test runner's blocked signals, SIGTERM among them.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func createLog(_ path: String) -> String {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return path
    }
}
