import StashCore

extension Engine {
    /// Deletes a removed download's files and record, once its teardowns have ended.
    /// Concurrent cancels of one download all get here: only a download still REMOVING after
    /// the wait is deleted (`EngineState.deletion(of:)`, `.removed`), so one that another
    /// cancel deleted and a client added again meanwhile is left alone, and a folder already
    /// gone is no error. Returns once the deletion of its record is durable.
    func finishRemoval(_ id: String) async throws {
        guard state.deletion(of: id) != nil else { return }
        await teardowns.wait(for: id)
        guard let deletion = state.deletion(of: id) else { return }
        let keys = self.keys
        try await removals.run { try deletion.run(keys: keys) }
        try await (run(.removed(id)) ?? commits.submit(nil, event: nil)).wait()
    }
}
