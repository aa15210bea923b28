import StashCore

/// Why a download cannot start for its size (`EngineState.storageShortfall`).
enum StorageShortfall: Equatable {
    /// Not enough free space now: it waits in the queue, with this reason, until space frees.
    case waits(String)
    /// No disk here will ever hold it (above `EngineState.largestDownload`, or above the whole
    /// disk): waiting would be forever, so it fails with this error.
    case never(DownloadError)
}
