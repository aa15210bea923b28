import StashCore

/// SetDownload and Move: decided by `EngineState+Queue` and `EngineState+Update`, answered with the record
/// once its change is committed.
extension Engine {
    /// SetDownload: every field checked before any is applied.
    package func set(_ changes: DownloadChanges) async throws -> Download {
        try await change(.setDownload(changes), id: changes.id)
    }

    package func move(id: String, _ move: QueueMove) async throws -> Download {
        try await change(.move(id, move), id: id)
    }

    private func change(_ input: EngineInput, id: String) async throws -> Download {
        let ticket = perform(try state.on(input))
        try await ticket?.wait()
        return try get(id: id)
    }
}
