import Logging
import Synchronization

/// Desktop notifications through org.freedesktop.Notifications on the session bus of the
/// daemon's user (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`). With no session
/// bus or no notification service, a notification is dropped and that is said once.
package final class Notifier: Sendable {
    private let connection: BusConnection?
    private let seenState: Mutex<(seen: String, missingSaid: Bool)>
    private let logger: Logger

    package init(environment: [String: String], logger: Logger) {
        self.logger = logger
        guard let address = BusKind.session.address(environment: environment) else {
            connection = nil
            seenState = Mutex(("no session bus", false))
            return
        }
        do {
            connection = try BusConnection(kind: .session, address: address, logger: logger)
            seenState = Mutex(("not used yet", false))
        } catch {
            logger.notice("no session bus: desktop notifications are not sent", metadata: ["address": "\(address)", "error": "\(error)"])
            connection = nil
            seenState = Mutex(("no session bus", false))
        }
    }

    /// What is seen of the notification service, for `stash info`.
    package var seen: String { seenState.withLock { $0.seen } }

    /// Shows a notification; returns once the service took it (or refused).
    package func notify(summary: String, body: String) async {
        guard let connection else { return }
        do {
            let id = try await connection.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "Notify",
                arguments: { message in
                    try message.append("stash")
                    try message.append(UInt32(0))
                    try message.append("")
                    try message.append(summary)
                    try message.append(body)
                    try message.appendEmptyArray(of: "s")
                    try message.appendEmptyArray(of: "{sv}")
                    try message.append(Int32(-1))
                }, reply: { try $0.readUInt32() })
            seenState.withLock { $0.seen = "sent (last id \(id))" }
        } catch let error as BusError where error.isServiceMissing {
            let first = seenState.withLock { state -> Bool in
                state.seen = "no notification service on the session bus"
                defer { state.missingSaid = true }
                return !state.missingSaid
            }
            if first { logger.notice("no notification service on the session bus: desktop notifications are not sent") }
        } catch {
            logger.warning("a desktop notification failed", metadata: ["error": "\(error)"])
            seenState.withLock { $0.seen = "failed: \(error)" }
        }
    }

    package func close() {
        connection?.close()
    }
}
