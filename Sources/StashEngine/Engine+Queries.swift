import Foundation
import StashCore

/// Queries: answered from the state (or the record cache, off the actor); they change nothing.
extension Engine {
    /// Answers from memory, on the caller's thread, unless the record lists files the cache
    /// does not hold (a bundle's): then nil, and `get(id:)` has the answer.
    package nonisolated func cachedGet(id: String) throws -> Download? {
        guard let download = records.get(id) else { throw StashError.notFound(id: id) }
        guard !download.isBundle else { return nil }
        return publicView(download)
    }

    /// The committed record with the engine's file list (`EngineState.committedRecord`).
    package func get(id: String) throws -> Download {
        publicView(try state.committedRecord(id))
    }

    /// Answers from memory, on the caller's thread: never touches the disk.
    package nonisolated func has(id: String) -> (exists: Bool, state: DownloadState) {
        guard let download = records.get(id) else { return (false, .notDownloaded) }
        return (true, download.state)
    }

    package func list(states: [DownloadState], pageSize: Int, pageToken: String, group: String = "") throws -> DownloadPage {
        let request = try ListRequest(states: states, pageSize: pageSize, pageToken: pageToken, group: group)
        return state.list(states: request.states, size: request.size, after: request.after, group: request.group)
    }

    /// `accepts`: for a reader in the daemon, the events it wants (`EventSubscription.accepts`).
    package func subscribe(ids: [String], minProgressStep: Int, minIntervalMs: Int, replayFrom: UInt64, accepts: (@Sendable (DownloadEvent) -> Bool)? = nil) -> EventSubscription {
        bus.subscribe(
            ids: Set(ids), minProgressStep: minProgressStep == 0 ? EngineState.progressStep : minProgressStep,
            minInterval: minIntervalMs == 0 ? EngineState.progressInterval : Double(minIntervalMs) / 1000, replayFrom: replayFrom, accepts: accepts)
    }

    package func stats() -> DownloadStats {
        state.stats()
    }
}
