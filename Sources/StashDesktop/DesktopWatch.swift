import Logging
import StashCore
import Synchronization

/// Follows what the system bus says about the network (NetworkManager's `Metered`) and power
/// (UPower's `OnBattery`): read once at the start and when a service comes onto the bus, then
/// kept from its PropertiesChanged signals, never polled. Every part is optional: with no
/// system bus, or a service not on it, the condition reads as not holding, which is stash's
/// behaviour without D-Bus, and `seen` says why (logged once). After a sleep both are read again.
package final class DesktopWatch: Sendable {
    private struct State {
        var conditions = DesktopConditions()
        /// What is seen of each service, by title, for `stash info`.
        var seen: [String: String] = [:]
    }

    /// Every change of the conditions, in order.
    package let updates: AsyncStream<DesktopConditions>
    private let continuation: AsyncStream<DesktopConditions>.Continuation
    private let connection: BusConnection?
    private let state = Mutex(State())
    private let logger: Logger
    package static let services: [DesktopService] = [.networkManager, .upower]

    private init(connection: BusConnection?, logger: Logger) {
        (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
        self.connection = connection
        self.logger = logger
    }

    /// Connects to the system bus named by `environment` (`DBUS_SYSTEM_BUS_ADDRESS`, else the
    /// standard socket), subscribes to the services' changes and reads their properties.
    /// Never fails: what cannot be seen is logged once and reported in `seen`.
    package static func start(environment: [String: String], logger: Logger) async -> DesktopWatch {
        let address = BusKind.system.address(environment: environment) ?? ""
        let connection: BusConnection
        do {
            connection = try BusConnection(kind: .system, address: address, logger: logger)
        } catch {
            logger.notice(
                "no system bus: metered networks and battery power are not seen",
                metadata: ["address": "\(address)", "error": "\(error)"])
            let watch = DesktopWatch(connection: nil, logger: logger)
            watch.state.withLock { state in
                for service in services { state.seen[service.title] = "no system bus" }
            }
            return watch
        }
        let watch = DesktopWatch(connection: connection, logger: logger)
        connection.onEnd { [weak watch] reason in watch?.busEnded(reason) }
        for service in services { await watch.follow(service, on: connection) }
        await watch.followWakes(on: connection)
        return watch
    }

    /// A sleep inhibitor on the same system bus.
    package func sleepInhibitor() -> SleepInhibitor {
        SleepInhibitor(connection: connection, logger: logger)
    }

    /// The conditions as last read.
    package var conditions: DesktopConditions { state.withLock { $0.conditions } }

    /// What is seen of each service, by its title (`NetworkManager`: "metered", "not on the
    /// system bus", ...).
    package var seen: [String: String] { state.withLock { $0.seen } }

    package func close() {
        connection?.close()
        continuation.finish()
    }

    private func follow(_ service: DesktopService, on connection: BusConnection) async {
        do {
            try await connection.subscribe(service.changesRule) { [weak self] message in
                guard let self else { return }
                do {
                    guard try message.readString() == service.interface else { return }
                    if let value = try message.readProperties()[service.property] { apply(value, of: service) }
                } catch {
                    logger.warning("an unreadable PropertiesChanged signal", metadata: ["service": "\(service.title)", "error": "\(error)"])
                }
            }
            try await connection.subscribe(service.ownerRule) { [weak self] message in
                guard let self, let owner = try? (message.readString(), message.readString(), message.readString()).2 else { return }
                if owner.isEmpty {
                    logger.notice("a desktop service left the bus", metadata: ["service": "\(service.title)"])
                    absent(service, "left the system bus")
                } else {
                    Task { await self.read(service, from: connection) }
                }
            }
        } catch {
            logger.warning("cannot follow a desktop service's changes", metadata: ["service": "\(service.title)", "error": "\(error)"])
        }
        await read(service, from: connection)
    }

    /// After a sleep (logind's `PrepareForSleep(false)`) each property is read again: the
    /// machine may wake on another network, or unplugged.
    private func followWakes(on connection: BusConnection) async {
        let rule = "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',"
            + "interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
        do {
            try await connection.subscribe(rule) { [weak self] message in
                guard let self, let sleeping = try? message.readBool(), !sleeping else { return }
                Task {
                    for service in Self.services { await self.read(service, from: connection) }
                }
            }
        } catch {
            logger.warning("cannot follow logind's PrepareForSleep", metadata: ["error": "\(error)"])
        }
    }

    private func read(_ service: DesktopService, from connection: BusConnection) async {
        do {
            let value = try await connection.property(
                destination: service.name, path: service.path, interface: service.interface, name: service.property)
            apply(value, of: service)
        } catch let error as BusError where error.isServiceMissing {
            logger.notice("a desktop service is not on the system bus", metadata: ["service": "\(service.title)"])
            absent(service, "not on the system bus")
        } catch {
            logger.warning("cannot read a desktop service's property", metadata: [
                "service": "\(service.title)", "property": "\(service.property)", "error": "\(error)"])
            absent(service, "cannot read \(service.property): \(error)")
        }
    }

    private func apply(_ value: BusValue, of service: DesktopService) {
        guard let holds = service.holds(value) else {
            logger.warning("a desktop service's property has the wrong type; read as not holding", metadata: [
                "service": "\(service.title)", "property": "\(service.property)",
                "type": "\(value.signature)", "expected": "\(service.signature)"])
            set(service, holds: false, seen: "\(service.property) has type \(value.signature), expected \(service.signature)")
            return
        }
        set(service, holds: holds, seen: describe(service, holds))
    }

    private func absent(_ service: DesktopService, _ why: String) {
        set(service, holds: false, seen: why)
    }

    private func set(_ service: DesktopService, holds: Bool, seen: String) {
        // The yield is under the lock, so the stream has the changes in the order they were made.
        state.withLock { state in
            state.seen[service.title] = seen
            var conditions = state.conditions
            if service.name == DesktopService.networkManager.name { conditions.metered = holds } else { conditions.onBattery = holds }
            guard conditions != state.conditions else { return }
            state.conditions = conditions
            continuation.yield(conditions)
        }
    }

    private func describe(_ service: DesktopService, _ holds: Bool) -> String {
        service.name == DesktopService.networkManager.name ? (holds ? "metered" : "not metered") : (holds ? "on battery" : "on AC power")
    }

    private func busEnded(_ reason: String) {
        guard reason != "closed" else { return }
        for service in Self.services { absent(service, "the system bus went away") }
    }
}
