import Glibc
import Logging
import StashCore
import Synchronization

/// Holds a logind inhibitor lock for sleep while downloads run ("stash: 3 downloads
/// running"; `delay` unless config `inhibit-sleep` says `block` or `no`), and lets it go when none does, or when logind says the machine is about to
/// sleep (`PrepareForSleep(true)`: every state a client was told of is already committed, so
/// there is nothing left to persist); after the wake (`PrepareForSleep(false)`) it takes it
/// again if downloads still run. With no system bus or no logind it does nothing and says why.
package final class SleepInhibitor: Sendable {
    private enum Event {
        case running(Int)
        case sleeping(Bool)
        case mode(SleepInhibitMode)
    }

    private struct State {
        var seen: String
    }

    private let connection: BusConnection?
    private let events: AsyncStream<Event>.Continuation
    private let state: Mutex<State>
    private let logger: Logger
    private static let login = "org.freedesktop.login1"
    private static let path = "/org/freedesktop/login1"
    private static let manager = "org.freedesktop.login1.Manager"

    /// `connection`: the system bus (DesktopWatch's), nil when there is none.
    package init(connection: BusConnection?, logger: Logger) {
        self.connection = connection
        self.logger = logger
        state = Mutex(State(seen: connection == nil ? "no system bus" : "not held"))
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = continuation
        guard let connection else { return }
        Task { [self] in
            let rule = "type='signal',sender='\(Self.login)',path='\(Self.path)',interface='\(Self.manager)',member='PrepareForSleep'"
            do {
                try await connection.subscribe(rule) { [continuation] message in
                    if let sleeping = try? message.readBool() { continuation.yield(.sleeping(sleeping)) }
                }
            } catch {
                logger.warning("cannot follow logind's PrepareForSleep", metadata: ["error": "\(error)"])
            }
            await serve(stream, on: connection)
        }
    }

    /// The lock to take (config `inhibit-sleep`): a held one of another mode is taken again.
    package func mode(_ mode: SleepInhibitMode) {
        events.yield(.mode(mode))
    }

    /// How many downloads run now (ActivityWatch's count).
    package func running(_ count: Int) {
        events.yield(.running(count))
    }

    /// What is seen of the lock, for `stash info`: "held (delay)", "not held", "no logind on
    /// the system bus", ...
    package var seen: String { state.withLock { $0.seen } }

    package func close() {
        events.finish()
    }

    /// One event at a time, so a take and a release never cross.
    private func serve(_ stream: AsyncStream<Event>, on connection: BusConnection) async {
        var running = 0
        var sleeping = false
        var mode = SleepInhibitMode.delay
        var descriptor: Int32?
        var heldMode = SleepInhibitMode.delay
        var missingSaid = false
        for await event in stream {
            switch event {
            case .running(let count): running = count
            case .mode(let value): mode = value
            case .sleeping(let value):
                sleeping = value
                logger.info(value ? "the machine goes to sleep: the sleep lock is let go" : "the machine woke up", metadata: ["running": "\(running)"])
            }
            let wanted = running > 0 && !sleeping && mode != .no
            if let held = descriptor, !wanted || heldMode != mode {
                // Closing the descriptor is what releases the lock.
                SystemCallError.close(held)
                descriptor = nil
                set(mode == .no ? "not taken (inhibit-sleep no)" : "not held")
            }
            if wanted, descriptor == nil {
                do {
                    descriptor = try await take(running, mode: mode, on: connection)
                    heldMode = mode
                    set("held (\(mode.rawValue))")
                } catch let error as BusError where error.isServiceMissing {
                    if !missingSaid { logger.notice("no logind on the system bus: sleep is not held off while downloads run") }
                    missingSaid = true
                    set("no logind on the system bus")
                } catch {
                    logger.warning("cannot take logind's sleep lock", metadata: ["error": "\(error)"])
                    set("cannot take the lock: \(error)")
                }
            }
        }
        if let held = descriptor { SystemCallError.close(held) }
    }

    private func take(_ running: Int, mode: SleepInhibitMode, on connection: BusConnection) async throws -> Int32 {
        let why = "stash: \(running) download\(running == 1 ? "" : "s") running"
        return try await connection.call(
            destination: Self.login, path: Self.path, interface: Self.manager, member: "Inhibit",
            arguments: { message in
                try message.append("sleep")
                try message.append("stash")
                try message.append(why)
                try message.append(mode.rawValue)
            }, reply: { try $0.readDescriptor() })
    }

    private func set(_ seen: String) {
        state.withLock { $0.seen = seen }
    }
}
