import StashCore

/// What verify's findings call for on one download, as `EngineState.damageRepairs` decides
/// it: without repair, FAILED naming the first file; with repair, back to QUEUED to fetch the
/// files again (a damaged one deleted first), or to read an HLS package's playlists again when
/// a playlist or key is among them.
struct DamageRepair: Sendable, Equatable {
    let id: String
    /// The state it was decided for: applied only while the download is still in it.
    let state: DownloadState
    /// With repair (QUEUED), or without (FAILED).
    let repair: Bool
    /// Indexes of the files to fetch again.
    let files: [Int]
    /// Files with wrong sizes or digests, deleted before the download is requeued.
    let deletions: [String]
    /// A playlist or key is lost: the package's playlists are read again.
    let replan: Bool
    /// The findings it covers, by index in the report: repaired once it is applied.
    let findings: [Int]
    /// What is wrong, naming the first file (the FAILED's message).
    let problem: String
}
