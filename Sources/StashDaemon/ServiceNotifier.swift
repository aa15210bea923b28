import Foundation
import Logging
import StashCore
import Synchronization

/// Tells the service manager how stashd is doing, by sd_notify(3)'s datagram protocol: one
/// datagram of `KEY=value` lines sent to the AF_UNIX address in `NOTIFY_SOCKET` (a path, or
/// the abstract namespace when it starts with '@'). stashd sends four messages (READY=1,
/// STATUS=, STOPPING=1, WATCHDOG=1), so it speaks the documented protocol itself rather than
/// link libsystemd for them. Without `NOTIFY_SOCKET` (not run by systemd) every send does
/// nothing.
///
/// A send never waits: a manager that does not read its socket (stopped under a debugger, or a
/// socket nobody reads) fills it after 10 datagrams (net.unix.max_dgram_qlen), and a blocking
/// send would then hold a thread of the cooperative pool, and the stop behind STOPPING=1, for
/// ever.
package final class ServiceNotifier: Sendable {
    private let address: UnixSocketAddress?
    private let descriptor: Int32
    private let logger: Logger
    /// Messages dropped because the socket was full; the first drop is logged.
    private let dropped = Atomic<Int>(0)
    /// Half of `WATCHDOG_USEC`: how often the manager wants WATCHDOG=1; nil when it does not.
    package let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`. A value stashd cannot use is
    /// logged (naming the variable, the value and the limit) and that part turned off: a
    /// notification that cannot be sent must not keep the downloads from running.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid(), logger: Logger) {
        self.logger = logger
        self.watchdogInterval = Self.watchdogInterval(environment: environment, pid: pid, logger: logger)
        guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty else {
            address = nil
            descriptor = -1
            return
        }
        guard target.hasPrefix("/") || target.hasPrefix("@") else {
            logger.warning("NOTIFY_SOCKET is neither a path nor an abstract name ('@…'); not notifying the service manager", metadata: ["NOTIFY_SOCKET": "\(target)"])
            address = nil
            descriptor = -1
            return
        }
        do {
            let parsed = try UnixSocketAddress(path: target, abstract: target.hasPrefix("@"), call: "sendto")
            descriptor = try SystemCallError.check("socket", target) {
                socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
            address = parsed
        } catch {
            logger.warning("cannot notify the service manager", metadata: ["NOTIFY_SOCKET": "\(target)", "error": "\(error)"])
            address = nil
            descriptor = -1
        }
    }

    deinit {
        if descriptor >= 0 { SystemCallError.close(descriptor) }
    }

    /// Whether a service manager is listening.
    package var isActive: Bool { address != nil }

    /// READY=1 with a first status: the registry is loaded and the socket accepts.
    package func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    package func status(_ text: String) { send("STATUS=\(text)") }

    package func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    package func watchdog() { send("WATCHDOG=1") }

    /// One datagram, or none when the socket has no room for it (logged at the first drop
    /// only: a stalled manager would otherwise get a line in the log a second). Any other
    /// failure is logged at debug only, since a manager that is gone will say so itself (and
    /// a missed STATUS is replaced by the next).
    private func send(_ message: String) {
        guard let address else { return }
        let descriptor = self.descriptor
        do {
            try SystemCallError.check("sendto", "NOTIFY_SOCKET") {
                message.utf8CString.withUnsafeBufferPointer { text in
                    address.withSocketAddress { socketAddress, length in
                        sendto(descriptor, text.baseAddress, text.count - 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length)
                    }
                }
            }
        } catch let error as SystemCallError where error.errnoCode == EAGAIN || error.errnoCode == EWOULDBLOCK {
            if dropped.add(1, ordering: .relaxed).oldValue == 0 {
                logger.warning("the service manager's notify socket is full; dropping the notifications it has no room for", metadata: ["message": "\(message)"])
            }
        } catch {
            logger.debug("cannot notify the service manager", metadata: ["message": "\(message)", "error": "\(error)"])
        }
    }

    /// Half of `WATCHDOG_USEC` when it is meant for this process (`WATCHDOG_PID` absent or
    /// ours), as sd_watchdog_enabled reads it.
    private static func watchdogInterval(environment: [String: String], pid: Int32, logger: Logger) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"] else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        // A day between pings is more than any watchdog wants; anything above is a typo.
        let limit: UInt64 = 86_400_000_000
        guard let microseconds = UInt64(text), microseconds > 0, microseconds <= limit else {
            logger.warning("WATCHDOG_USEC is not a number of microseconds from 1 to \(limit); not sending WATCHDOG=1", metadata: ["WATCHDOG_USEC": "\(text)"])
            return nil
        }
        return .microseconds(Int64(microseconds / 2))
    }
}
