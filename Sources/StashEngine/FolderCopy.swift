import StashCore

/// The new copy of a download with a folder of files (a bundle, a file with text tracks), being
/// fetched file by file into the sibling folder `FolderSwap` puts in place once every file is
/// whole.
struct FolderCopy: Equatable {
    /// The new copy's file records, in the download's order: the URLs and paths of the old
    /// ones, the sizes and digests the add gave, what the responses said once fetched.
    var files: [DownloadFile]
    /// Files still to start, in order; the first is `waiting[head]`.
    var waiting: [Int]
    var head = 0
    /// The running transfers' generations, by file index.
    var running: [Int: UInt64] = [:]
    var filesDone = 0
    /// The files swapped in: their renames are made durable and the marker put in, then the
    /// record of the new copy is committed, then the folders are exchanged.
    var marking = false
    /// An HLS package's new plan (`HLSPreparation.Prepared`): its keys (sealed with
    /// `ReplacementKeys.prefix` until the exchange), its playlists, what it holds.
    var keyPaths: [String] = []
    var playlistPaths: [String] = []
    var quality = ""
    var hasSubtitles = false
    /// A package with DRM: the new licence's key ids by key path, and the licence the server
    /// granted for the new copy (asked for as an add asks, its keys sealed with the prefix).
    var licenseKeyIDs: [String: String] = [:]
    var license: LicenseTerms?

    /// The key store ids of the new copy's keys, without the prefix.
    var keyStoreIDs: [String] { ReplacementKeys.storeIDs(paths: keyPaths, licenseKeyIDs: licenseKeyIDs) }

    /// `files` already whole (a package planned into a folder that held them) are not fetched.
    init(files: [DownloadFile]) {
        self.files = files
        self.waiting = files.indices.filter { !files[$0].done }
        self.filesDone = files.count - waiting.count
    }

    /// The file index of a running transfer's `generation`.
    func index(of generation: UInt64) -> Int? {
        running.first { $0.value == generation }?.key
    }

    /// The next file to start, taken off the waiting list.
    mutating func next() -> Int? {
        guard head < waiting.count else { return nil }
        head += 1
        return waiting[head - 1]
    }

    var isComplete: Bool { filesDone == files.count }
}
