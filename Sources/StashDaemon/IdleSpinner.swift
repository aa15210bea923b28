import CLinux
import Dispatch
import Foundation
import Logging
import StashCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Keeps one CPU out of its idle state for a short while after each request, so that the
/// next request of a client making calls back to back is read without a wake-up from idle.
///
/// On a virtual machine an idle CPU halts and waking it goes through the hypervisor: a
/// round trip between two processes that each block in the kernel costs 85–90 µs here, but
/// 15 µs while a CPU is busy (see bench/README.md). The spinner is a thread at
/// `SCHED_IDLE`: it runs only when nothing else wants its CPU, the scheduler puts a woken
/// thread on a CPU that runs only such a thread, and that thread preempts it at once. It
/// spins for `window` after the last request, then sleeps until the next one.
final class IdleSpinner: Sendable {
    private let window: UInt64
    /// Requests seen; the spinner watches it change rather than the clock, so the request
    /// path pays one relaxed increment.
    private let requests = Atomic<UInt64>(0)
    private let state = Atomic<Int>(State.parked)
    private let wake = DispatchSemaphore(value: 0)

    private enum State {
        static let spinning = 0
        static let parked = 1
        static let stopped = 2
    }

    /// - Parameter windowMicroseconds: how long to spin after the last request; 0 never spins.
    init?(windowMicroseconds: Int, logger: Logger) {
        guard windowMicroseconds > 0 else { return nil }
        window = UInt64(windowMicroseconds) * 1000
        NamedThread.start("stash-spinner") { [self] in run(logger: logger) }
    }

    var isSpinning: Bool { state.load(ordering: .relaxed) == State.spinning }

    /// Called for every request read; wakes the spinner when it sleeps.
    func requestArrived() {
        requests.add(1, ordering: .relaxed)
        if state.load(ordering: .sequentiallyConsistent) == State.parked,
           state.compareExchange(expected: State.parked, desired: State.spinning, ordering: .sequentiallyConsistent).exchanged {
            wake.signal()
        }
    }

    /// Ends the thread (within one window when it is spinning). Calling it again does nothing.
    func stop() {
        if state.exchange(State.stopped, ordering: .sequentiallyConsistent) == State.parked { wake.signal() }
    }

    private func run(logger: Logger) {
        var parameters = sched_param()
        // At any other priority the spinning would take CPU time from real work.
        guard sched_setscheduler(0, STASH_SCHED_IDLE, &parameters) == 0 else {
            logger.warning("--busy-poll-us is off: cannot run a thread at SCHED_IDLE", metadata: ["errno": "\(errno)"])
            return
        }
        while state.load(ordering: .sequentiallyConsistent) != State.stopped {
            wake.wait()
            spinUntilQuiet()
        }
    }

    /// Spins while requests keep coming within the window; returns parked (or stopped).
    private func spinUntilQuiet() {
        var seen = requests.load(ordering: .relaxed)
        var lastChange = DispatchTime.now().uptimeNanoseconds
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let count = requests.load(ordering: .relaxed)
            if count != seen {
                seen = count
                lastChange = now
            } else if now - lastChange >= window {
                // Park, then look once more: a request that saw "spinning" did not signal.
                guard state.compareExchange(expected: State.spinning, desired: State.parked, ordering: .sequentiallyConsistent).exchanged
                else { return }  // stopped
                if requests.load(ordering: .sequentiallyConsistent) == seen { return }
                // A request came meanwhile: take the spinning state back, unless that request
                // already did, in which case its signal is consumed by the next wait.
                if state.compareExchange(expected: State.parked, desired: State.spinning, ordering: .sequentiallyConsistent).exchanged {
                    lastChange = now
                } else {
                    return
                }
            }
        }
    }
}
