import StashCore

/// One caller's write, queued for the next group commit. Writes are applied in the order they
/// were submitted, so a save followed by a delete of the same id leaves no row.
enum RegistryWrite: Sendable {
    case batch(RegistryBatch)
    case config(DaemonConfig)

    /// Names the write in error messages.
    var summary: String {
        switch self {
        case .batch(let batch): return batch.summary
        case .config: return "save of the config"
        }
    }
}

/// Download writes that commit together, applied in this order: whole downloads, records,
/// files, deletions.
package struct RegistryBatch: Sendable {
    /// Downloads written with all their files (new downloads).
    package var saves: [Download] = []
    /// Downloads whose record changed but not their file list.
    package var updates: [Download] = []
    /// Downloads whose state or progress alone changed since their row was last written
    /// (`Download.differsOnlyInProgress`): those columns alone are written.
    package var progressUpdates: [Download] = []
    /// Single files that learned something (size, validators).
    package var fileUpdates: [FileUpdate] = []
    package var deletes: [String] = []
    /// Licence releases to keep in the outbox (inserted or replaced by id), and ids of
    /// releases the server acknowledged.
    package var releases: [LicenseRelease] = []
    package var releasesDone: [String] = []

    package init(saves: [Download] = [], updates: [Download] = [], progressUpdates: [Download] = [], fileUpdates: [FileUpdate] = [],
                deletes: [String] = [], releases: [LicenseRelease] = [], releasesDone: [String] = []) {
        self.saves = saves
        self.updates = updates
        self.progressUpdates = progressUpdates
        self.fileUpdates = fileUpdates
        self.deletes = deletes
        self.releases = releases
        self.releasesDone = releasesDone
    }

    package var isEmpty: Bool {
        saves.isEmpty && updates.isEmpty && progressUpdates.isEmpty && fileUpdates.isEmpty && deletes.isEmpty && releases.isEmpty && releasesDone.isEmpty
    }

    var summary: String {
        var parts: [String] = []
        if !saves.isEmpty { parts.append("save of \(saves.count) download(s)") }
        if !updates.isEmpty || !progressUpdates.isEmpty { parts.append("update of \(updates.count + progressUpdates.count) download(s)") }
        if !fileUpdates.isEmpty { parts.append("update of \(fileUpdates.count) file(s)") }
        if !deletes.isEmpty { parts.append("delete of \(deletes.count) download(s)") }
        if !releases.isEmpty { parts.append("outbox of \(releases.count) licence release(s)") }
        if !releasesDone.isEmpty { parts.append("removal of \(releasesDone.count) acknowledged release(s)") }
        return parts.joined(separator: ", ")
    }
}

/// The new stored facts of one file of a download.
package struct FileUpdate: Sendable, Equatable {
    package var downloadID: String
    package var index: Int
    package var file: DownloadFile

    package init(downloadID: String, index: Int, file: DownloadFile) {
        self.downloadID = downloadID
        self.index = index
        self.file = file
    }
}
