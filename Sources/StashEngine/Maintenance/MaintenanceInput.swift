import StashCore

/// What the maintenance services tell `EngineState` (as `EngineInput.maintenance`): a fact
/// they found, or a change of a download's files they need decided. The state decides what it
/// means for the download (FAILED, back to QUEUED, nothing); a service never sets a state.
enum MaintenanceInput: Sendable {
    /// The disk watch saw something change in the folders of these downloads (or its stat pass
    /// came round): the files of those that hold complete files are looked at, and one that is
    /// missing or has another size fails its download, naming the file.
    case diskChanged([String])
    /// The watches of these downloads were added at start, off the engine: one that stopped
    /// holding complete files meanwhile is unwatched.
    case watchesAdded([String])
    /// A verify's decision for one download (`EngineState.damageRepairs`), applied if the
    /// download is still in the state it was decided for.
    case repairDamage(DamageRepair)
    /// An adopted download's record is durable: its files are watched.
    case adopted(String)
    /// Forget is about to move a COMPLETED download's files out: they are checked first (a
    /// download not whole fails instead), then the download is held (`EngineState.holds`) and
    /// unwatched until `.handOverEnded`.
    case handOverStarts(String)
    /// The move ended; `moved` false: the files are still in place and watched again.
    case handOverEnded(String, moved: Bool)
    /// Files appended to a bundle (AddDownload with `append`).
    case appendFiles(String, [BundleFileSpec])
    /// Side-loaded text tracks added to a download.
    case addTextTracks(String, [TextTrack])
    /// A completed HLS download keeps the subtitle languages of `options` from now on (the
    /// stream was asked): its playlists are read again. `languages` as the client named them.
    case addSubtitleLanguages(String, HLSOptions, languages: [String])
    /// A removal of subtitles begins: the download is checked and held while the package's
    /// master is rewritten.
    case subtitleRemovalStarts(String)
    /// The record stops listing the removed subtitles' files (nil: the removal failed and
    /// nothing changes); the hold ends either way.
    case subtitleRemovalEnded(String, SubtitleRemoval?)

    /// The download the input is about, when it is about one.
    var id: String? {
        switch self {
        case .diskChanged, .watchesAdded: return nil
        case .repairDamage(let repair): return repair.id
        case .adopted(let id), .handOverStarts(let id), .handOverEnded(let id, _), .appendFiles(let id, _), .addTextTracks(let id, _),
             .addSubtitleLanguages(let id, _, _), .subtitleRemovalStarts(let id), .subtitleRemovalEnded(let id, _):
            return id
        }
    }
}

/// What a removal of subtitles takes out of a download's record.
struct SubtitleRemoval: Sendable, Equatable {
    /// Folders of the HLS renditions removed (relative to the asset folder): every file,
    /// playlist and key below them goes.
    var renditionFolders: Set<String>
    /// Paths of the text tracks removed.
    var trackPaths: Set<String>
    /// The languages of the renditions left, when renditions were removed (the master names
    /// exactly these from now on); nil when none was.
    var languagesLeft: [String]?
    /// Whether renditions are left in the master.
    var renditionsLeft: Bool
}
