import StashCore
import StashDesktop
import StashEngine

/// Follows the engine's events in the daemon and sends the desktop notifications the config's
/// `notify` asks for (`CompletionNotice`), through StashDesktop's `Notifier`.
enum DesktopNotices {
    /// Runs until the task is cancelled or the engine's events end.
    static func start(engine: Engine, notifier: Notifier) async -> Task<Void, Never> {
        // Completions and failures alone, picked at delivery: every download's add, start and
        // progress would otherwise wake this task too, each to ask the engine for its config
        // (2,000 downloads handed it 8,000 events).
        let events = await engine.subscribe(ids: [], minProgressStep: 100, minIntervalMs: 3_600_000, replayFrom: 0, accepts: { event in
            guard case .stateChanged(let download, _) = event.kind else { return false }
            return download.state == .completed || download.state == .failed
        })
        return Task {
            // The group totals each group was last told at: two completions read after both
            // landed see the same totals, and the group is told once.
            var told: [String: GroupTotals] = [:]
            for await event in events {
                guard case .stateChanged(let download, let previous) = event.kind else { continue }
                let policy = await engine.config.notify
                guard policy != .none else { continue }
                var group: GroupTotals?
                if policy == .groups, !download.group.isEmpty {
                    group = try? await engine.list(states: [], pageSize: 1, pageToken: "", group: download.group).totals
                    if let group, told[download.group] == group { continue }
                }
                guard let notice = CompletionNotice.of(download, previous: previous, policy: policy, group: group) else { continue }
                if let group { told[download.group] = group }
                await notifier.notify(summary: notice.summary, body: notice.body)
            }
        }
    }
}
