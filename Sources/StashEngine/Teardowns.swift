import Synchronization

/// The teardowns under way of each download: its transfers being stopped, its planning being
/// cancelled, a part file deleted once they have. Each is chained on the one before it, so
/// they end in the order they were ordered, and a removal waits for the last of them before it
/// deletes the folder (`wait(for:)`): a transfer still open would create files in it.
final class Teardowns: Sendable {
    private struct Pending {
        let number: UInt64
        let task: Task<Void, Never>
    }

    private struct State {
        var next: UInt64 = 0
        var pending: [String: Pending] = [:]
    }

    private let state = Mutex(State())

    /// Runs `body` once the teardowns of `id` under way have ended; what a later one and a
    /// removal wait for. Forgotten once it has ended, unless a later one took its place. (The
    /// first stop to end used to forget a later one still running: a removal then waited for
    /// nothing and deleted the folder while resumed transfers were still creating files in
    /// it, INTERNAL "could not delete …".)
    @discardableResult
    func chain(_ id: String, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            let previous = state.pending[id]?.task
            let number = state.next
            state.next += 1
            let task = Task {
                await previous?.value
                await body()
                self.forget(id, number)
            }
            state.pending[id] = Pending(number: number, task: task)
            return task
        }
    }

    /// As `chain`, only when a teardown of `id` is under way; otherwise `body` is not run.
    func chainIfPending(_ id: String, _ body: @escaping @Sendable () async -> Void) {
        guard state.withLock({ $0.pending[id] != nil }) else { return }
        chain(id, body)
    }

    private func forget(_ id: String, _ number: UInt64) {
        state.withLock { state in
            if state.pending[id]?.number == number { state.pending[id] = nil }
        }
    }

    /// Returns once every teardown of `id` has ended, those chained on while it waited too.
    func wait(for id: String) async {
        while let pending = state.withLock({ $0.pending[id] }) {
            await pending.task.value
        }
    }

    /// Downloads with a teardown under way.
    var count: Int { state.withLock { $0.pending.count } }

    /// Every teardown under way (the last of each download's chain).
    var all: [Task<Void, Never>] { state.withLock { $0.pending.values.map(\.task) } }
}
