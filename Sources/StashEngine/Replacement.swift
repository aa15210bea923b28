import StashCore

/// A new copy of a COMPLETED download being fetched beside the old one (add with `replace`).
/// The old copy stays at its path, and the download COMPLETED, until the new one is whole,
/// durable and renamed over it: a single file under a temporary name beside it
/// (`ReplacementSwap`), a folder of files in a sibling folder (`folder`, `FolderSwap`). It
/// lives in memory only: a restart discards it, and the old copy is what the download holds.
struct Replacement: Equatable {
    /// The transfer's generation: its events are told apart from the download's own by it.
    /// A folder copy numbers each file's transfer (`FolderCopy.running`).
    let generation: UInt64
    /// The copy of a download with a folder of files; nil for a single file.
    var folder: FolderCopy?
    /// An HLS package's playlists being read again, by this planning's generation; nil once
    /// the new copy has its files.
    var planning: UInt64?
    /// The new copy's name in the asset folder while it is fetched (its part file is this
    /// name with `.part`).
    let temporaryName: String
    /// The name of the old copy, which the new one replaces.
    let finalName: String
    /// The new copy is complete and being renamed over the old one: no longer cancellable.
    var swapping = false
    /// What the new copy's response and body said: the file's record once it is swapped in.
    var size: Int64?
    var etag: String?
    var lastModified: String?
    /// The sha256 the add gave (checked by the fetch), the file's from then on.
    let sha256: String
    /// The old copy's file record, put back when the rename fails.
    var oldFile: DownloadFile?
    /// A folder copy's old record, put back when the exchange fails.
    var oldRecord: Download?
    /// The add's files (with their digests) of a replace waiting for a download slot; nil once
    /// it has one.
    var waitingFiles: [DownloadFile]?
    /// The percent of the new copy last shown in the record's reason.
    var shownPercent = 0
    /// The reason shows the new copy's progress in steps of this many percent: each is a commit.
    static let percentStep = 10

    /// The suffix of a new copy's temporary name: a name no file of a single-file download has
    /// (its own name comes from its URL, a part file ends in `.part`).
    static let suffix = ".replacing"

    /// The names a replacement of `download` under way writes in its folder (none when there
    /// is none): verify and purge must not take them for orphans and delete them mid-transfer.
    /// The record's reason says so while, and only while, the engine holds a `Replacement`.
    static func names(of download: Download) -> Set<String> {
        guard isUnderWay(download), let file = download.files.first else { return [] }
        if replacesFolder(download) { return [FolderSwap.marker] }
        return [file.path + suffix, file.path + suffix + ".part"]
    }

    /// The folders beside `assets/<id>` that a replacement of `download` under way writes
    /// (its new copy's sibling folder); none for a single file, or with no replace under way.
    static func folders(of download: Download) -> [String] {
        isUnderWay(download) && replacesFolder(download) ? [FolderSwap.siblingName(download.id)] : []
    }

    private static func isUnderWay(_ download: Download) -> Bool {
        download.stateReason.hasPrefix(EngineState.replacingReason) || download.stateReason == EngineState.swappingReason
    }

    /// Whether a replace of `download` fetches a new folder (`FolderSwap`) rather than one file
    /// beside the old one: anything but a single file without text tracks.
    static func replacesFolder(_ download: Download) -> Bool {
        download.isFolder || download.files.count != 1
    }
}
