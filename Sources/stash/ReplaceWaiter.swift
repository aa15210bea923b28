import StashClient

/// Follows a replace (`add --replace --wait`) until it ends: the new copy swapped in, or the
/// replace failed, was cancelled or discarded by a restart (the old copy kept, COMPLETED), or
/// the download went. The record stays COMPLETED throughout; its reason says how the replace
/// goes (PROTOCOL.md, "Replace").
enum ReplaceWaiter {
    static let replaced = "replaced by a new copy"
    /// The reasons of a replace that ended with the old copy kept.
    static let keptPrefixes = ["the replace failed", "the replace was cancelled", "a replace was under way when stashd stopped"]

    /// `events` must have been opened before the add that `answer` answers. Returns true when
    /// the new copy is in place; says why not on stderr otherwise. `quiet`: nothing else is printed.
    static func wait(
        for answer: Download, client: StashClient, events: AsyncThrowingStream<DownloadEvent, Error>, json: Bool, quiet: Bool = false
    ) async throws -> Bool {
        let id = answer.id
        let interrupt = InterruptNotice(ids: [id])
        defer { interrupt.cancel() }
        if !json && !quiet { Output.line("waiting for the replace of \(id); the old copy stays until the new one is complete") }
        for try await event in events {
            var record: Download
            switch event.kind {
            case .stateChanged(let download, _) where download.id == id:
                record = download
            case .eventsLost:
                record = try await client.getDownload(id: id)
            case .removed(let removed) where removed == id:
                Output.error("download \(id) was cancelled during its replace")
                return false
            default:
                continue
            }
            guard ended(record) else { continue }
            // An end told before this add's replace started (one that was under way when the
            // events were opened): the record as it is now says whether this one goes on.
            let now = try await client.getDownload(id: id)
            guard ended(now) else { continue }
            record = now
            if json && !quiet { Output.json(record.publicRecord) }
            if record.state == .completed && record.stateReason == replaced {
                if !json && !quiet { Output.line("replaced: \(id) (\(record.state.name))") }
                return true
            }
            let reason = record.error.map { $0.description } ?? record.stateReason
            Output.error("download \(id): \(reason.isEmpty ? "ended \(record.state.name)" : reason)")
            return false
        }
        throw StashError.connectionFailure("connection to stashd closed")
    }

    /// Whether the replace is over: the new copy swapped in, the old one kept, or the record
    /// no longer COMPLETED (a second cancel, a file lost meanwhile).
    private static func ended(_ download: Download) -> Bool {
        download.state != .completed || download.stateReason == replaced || keptPrefixes.contains { download.stateReason.hasPrefix($0) }
    }
}
