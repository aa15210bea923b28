import CLinux
import CSDBus
import Foundation
import Logging
import StashCore
import Synchronization

/// One connection to a bus, served by a thread of its own that sleeps in poll(2) on the bus's
/// descriptor and a wake-up pipe: signals are handled as they arrive, with no timer. sd-bus is
/// not thread-safe, so everything done with the bus runs on that thread: `run` hands it a job
/// and awaits its result; a signal's handler is called there. The thread holds the connection
/// until `close` (or the bus going away) ends it.
package final class BusConnection: Sendable {
    private typealias Job = @Sendable (OpaquePointer) -> Void

    private struct State {
        var jobs: [Job] = []
        /// Why the connection ended (closed, or the bus went away); nil while it is open.
        var ended: String?
        var onEnd: (@Sendable (String) -> Void)?
        var handlers: [Unmanaged<SignalHandler>] = []
    }

    /// A signal's handler, passed to sd-bus as the match's userdata.
    private final class SignalHandler: Sendable {
        let handle: @Sendable (BusMessage) -> Void
        init(_ handle: @escaping @Sendable (BusMessage) -> Void) { self.handle = handle }
    }

    /// The bus, touched only on the connection's thread (and at `init`, before it starts).
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    package let kind: BusKind
    package let address: String
    private let bus: Handle
    private let wake: (read: Int32, write: Int32)
    private let state = Mutex(State())
    private let logger: Logger

    /// How long a method call waits for its reply: a service that hangs must not hold back
    /// the next signal for long.
    package static let callTimeout: UInt64 = 5_000_000

    /// Connects to the bus at `address` and says Hello; throws when nothing listens there.
    package init(kind: BusKind, address: String, logger: Logger) throws {
        var pointer: OpaquePointer?
        try BusError.check("sd_bus_new", kind.rawValue) { sd_bus_new(&pointer) }
        guard let pointer else { throw BusError(call: "sd_bus_new", subject: kind.rawValue, errnoCode: ENOMEM) }
        do {
            try BusError.check("sd_bus_set_address", address) { sd_bus_set_address(pointer, address) }
            try BusError.check("sd_bus_set_bus_client", address) { sd_bus_set_bus_client(pointer, 1) }
            try BusError.check("sd_bus_set_method_call_timeout", address) { sd_bus_set_method_call_timeout(pointer, Self.callTimeout) }
            try BusError.check("sd_bus_start", address) { sd_bus_start(pointer) }
        } catch {
            sd_bus_flush_close_unref(pointer)
            throw error
        }
        var ends: [Int32] = [-1, -1]
        do {
            try SystemCallError.check("pipe2", "the bus's wake-up pipe") { pipe2(&ends, O_CLOEXEC | O_NONBLOCK) }
        } catch {
            sd_bus_flush_close_unref(pointer)
            throw error
        }
        self.kind = kind
        self.address = address
        self.bus = Handle(pointer: pointer)
        self.wake = (ends[0], ends[1])
        self.logger = logger
        NamedThread.start("stash-\(kind.rawValue)bus") { [self] in loop() }
    }

    /// Called once, on the bus's thread, when the connection ends, with why (at once when it
    /// already has).
    package func onEnd(_ handler: @escaping @Sendable (String) -> Void) {
        let ended = state.withLock { state -> String? in
            if state.ended == nil { state.onEnd = handler }
            return state.ended
        }
        if let ended { handler(ended) }
    }

    /// Whether the connection still stands.
    package var isOpen: Bool { state.withLock { $0.ended == nil } }

    /// Runs `body` with the bus on the connection's thread and returns what it returns.
    package func run<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job: Job = { bus in continuation.resume(with: Result(catching: { try body(bus) })) }
            let ended = state.withLock { state -> String? in
                if state.ended == nil { state.jobs.append(job) }
                return state.ended
            }
            if let ended {
                continuation.resume(throwing: BusError(call: "run", subject: "the \(kind.rawValue) bus (\(ended))", errnoCode: ENOTCONN))
                return
            }
            wakeThread()
        }
    }

    /// Calls `member` and reads its reply with `read`, on the connection's thread.
    package func call<T: Sendable>(
        destination: String, path: String, interface: String, member: String,
        arguments: @escaping @Sendable (BusMessageWriter) throws -> Void = { _ in },
        reply read: @escaping @Sendable (BusMessage) throws -> T
    ) async throws -> T {
        try await run { bus in
            let subject = "\(destination) \(path) \(interface).\(member)"
            var message: OpaquePointer?
            try BusError.check("sd_bus_message_new_method_call", subject) {
                sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
            }
            defer { sd_bus_message_unref(message) }
            guard let message else { throw BusError(call: "sd_bus_message_new_method_call", subject: subject, errnoCode: ENOMEM) }
            try arguments(BusMessageWriter(pointer: message, member: member))
            // sd-bus fills in the error the peer answered with; `check` reads and frees it.
            let error = UnsafeMutablePointer<sd_bus_error>.allocate(capacity: 1)
            error.initialize(to: sd_bus_error())
            defer { error.deallocate() }
            var reply: OpaquePointer?
            try BusError.check("sd_bus_call", subject, error: error) { sd_bus_call(bus, message, 0, error, &reply) }
            defer { sd_bus_message_unref(reply) }
            guard let reply else { throw BusError.unexpected(subject, "no reply") }
            return try read(BusMessage(pointer: reply))
        }
    }

    /// A property's value (org.freedesktop.DBus.Properties.Get).
    package func property(destination: String, path: String, interface: String, name: String) async throws -> BusValue {
        try await call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: { try $0.append(interface); try $0.append(name) }, reply: { try $0.readVariant() })
    }

    /// Whether a name has an owner on the bus.
    package func hasOwner(_ name: String) async throws -> Bool {
        try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner",
            arguments: { try $0.append(name) }, reply: { try $0.readBool() })
    }

    /// Calls `handler` on the connection's thread for every message matching `rule` (a D-Bus
    /// match rule), from the moment this returns.
    package func subscribe(_ rule: String, handler: @escaping @Sendable (BusMessage) -> Void) async throws {
        let box = Unmanaged.passRetained(SignalHandler(handler))
        do {
            _ = try await run { bus in
                try BusError.check("sd_bus_add_match", rule) {
                    sd_bus_add_match(bus, nil, rule, { message, userdata, _ in
                        guard let message, let userdata else { return 0 }
                        Unmanaged<SignalHandler>.fromOpaque(userdata).takeUnretainedValue().handle(BusMessage(pointer: message))
                        return 0
                    }, box.toOpaque())
                }
            }
        } catch {
            box.release()
            throw error
        }
        // Released with the bus: sd-bus calls the handler until then.
        state.withLock { $0.handlers.append(box) }
    }

    /// The wake-up pipe closes here, not when the thread ends: a `run` that saw the connection
    /// open may write its wake-up byte after the thread has gone, and a number the thread had
    /// closed may by then be another file's (`DiskWatch` does the same).
    deinit {
        SystemCallError.close(wake.read)
        SystemCallError.close(wake.write)
    }

    /// Ends the connection; its thread closes the bus.
    package func close() {
        end("closed")
    }

    private func end(_ reason: String) {
        let first = state.withLock { state -> Bool in
            guard state.ended == nil else { return false }
            state.ended = reason
            return true
        }
        if first { wakeThread() }
    }

    private func wakeThread() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; nothing is lost.
        _ = try? SystemCallError.checkNonBlocking("write", "the bus's wake-up pipe") { Glibc.write(wake.write, &byte, 1) }
    }

    private func loop() {
        let bus = bus.pointer
        var drained = [UInt8](repeating: 0, count: 64)
        while true {
            let (jobs, ended) = state.withLock { state in
                defer { state.jobs = [] }
                return (state.jobs, state.ended)
            }
            for job in jobs { job(bus) }
            if ended != nil { break }
            // At most a batch of messages before the queued jobs get their turn, so a flood
            // of signals does not starve a call.
            var processed = 0
            var result: Int32 = 1
            while processed < 64, result > 0 {
                result = sd_bus_process(bus, nil)
                processed += 1
            }
            if result < 0 {
                let error = BusError(call: "sd_bus_process", subject: address, errnoCode: -result)
                logger.notice("the bus connection ended", metadata: ["bus": "\(kind.rawValue)", "error": "\(error)"])
                end("the bus went away")
                continue
            }
            if result > 0 { continue }
            var fds = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            do {
                try SystemCallError.check("poll", "the \(kind.rawValue) bus") { poll(&fds, 2, timeoutMilliseconds(bus)) }
            } catch {
                logger.error("the bus's thread stopped", metadata: ["bus": "\(kind.rawValue)", "error": "\(error)"])
                end("poll failed")
                continue
            }
            if fds[1].revents != 0 {
                while let count = try? SystemCallError.checkNonBlocking("read", "the bus's wake-up pipe", {
                    Glibc.read(wake.read, &drained, drained.count)
                }), count > 0 {}
            }
        }
        // Jobs that came with the end fail on the closed connection.
        let (jobs, reason, onEnd, handlers) = state.withLock { state in
            defer { state.jobs = []; state.handlers = []; state.onEnd = nil }
            return (state.jobs, state.ended ?? "closed", state.onEnd, state.handlers)
        }
        for job in jobs { job(bus) }
        sd_bus_flush_close_unref(bus)
        for handler in handlers { handler.release() }
        onEnd?(reason)
    }

    /// poll(2)'s timeout for sd-bus's next deadline (a method call's, or 0 when messages are
    /// already queued), or -1 for none.
    private func timeoutMilliseconds(_ bus: OpaquePointer) -> Int32 {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > current else { return 0 }
        return Int32(min((deadline - current + 999) / 1000, UInt64(Int32.max)))
    }
}
