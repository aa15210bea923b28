import Foundation
import Logging
import StashCore
import StashFetch

/// What `EngineState` orders done: the engine's only side effects, decided in
/// `EngineState.on(_:)` and carried out, in the order given, by the `Engine` actor, which
/// decides nothing of its own. The order is part of the answer: a transfer is stopped before
/// the record that says so is committed, and a record is committed before its event is
/// published (one `.commit` carries both, and `CommitQueue` keeps that order).
enum EngineEffect {
    /// Write `change` to the registry, then publish `event` (either may be nil).
    case commit(CommitQueue.Change?, then: DownloadEvent.Kind?)
    /// Start the transfer of file `index` of download `id`; its events come back as
    /// `.transfer` inputs carrying `generation`.
    case startTransfer(id: String, index: Int, generation: UInt64, FetchRequest)
    /// Stop these transfers of download `id`; `.transfersStopped(id)` follows once every one
    /// is torn down and its file closed.
    case stopTransfers(id: String, generations: [UInt64])
    /// Read an HLS download's playlists, the planning's earlier failed attempts
    /// `attemptsBefore` (`EngineState+Retry`); the result comes back as `.planned`.
    case startPlanning(generation: UInt64, Download, attemptsBefore: Int)
    case stopPlanning(id: String, generation: UInt64)
    /// Delete `path` once the transfers of `id` being stopped have closed their files.
    case removeAfterStop(id: String, path: String)
    /// Make the renames of a bundle's files durable; `.foldersSynced` follows.
    case syncFolders(id: String, folders: [String], synced: Int)
    /// The flight log's lines (`CrashGuard`): the download's transfers start or stop.
    case flightStarted(String)
    case flightEnded(String)
    /// The disk watch starts or stops watching a download's folders.
    case watch(Download)
    case unwatch(String)
    /// An order to the licence manager: arm its timer, renew a licence, keep a release.
    case license(LicenseOrder)
    /// Take `input` in (a timer's: `.storageRecheckDue`, `.rateChangeDue`, `.retryDue`) once
    /// `after` seconds have passed on the engine's clock.
    case arm(after: TimeInterval, EngineInput)
    /// Storage figures (GetSystemInfo) made before this change are stale.
    case forgetStorageInfo
    /// The global rate limit in force (the schedule's or `rate-limit`).
    case setRateLimit(Int64)
    /// A download's own limit (SetDownload): its running transfers, the rate group named by
    /// its id, take it at once.
    case setGroupRateLimit(String, Int64)
    case log(Logger.Level, Logger.Message, Logger.Metadata)
    /// Rename a replacement's complete new copy over the old one (`ReplacementSwap`);
    /// `.replacementSwapped` follows.
    case swapReplacement(id: String, folder: String, temporary: String, final: String)
    /// Make the renames of a folder copy (`folder`, the sibling of the asset folder) durable in
    /// `folders`, then put `FolderSwap`'s marker in it; `.replacementMarked` follows.
    case markReplacementFolder(id: String, folder: String, folders: [String])
    /// Exchange a folder copy with the asset folder (`FolderSwap`), once the registry holds the
    /// new copy's record, then seal an HLS package's new `keys` under their own ids and delete
    /// the old copy's `staleKeys` (`ReplacementKeys`); `.replacementSwapped` follows.
    case swapReplacementFolder(id: String, keys: [String], staleKeys: [String])
    /// Read an HLS package's playlists again into the sibling folder of a replace; the result
    /// comes back as `.planned`.
    case startReplacePlanning(generation: UInt64, Download)
    /// Delete the keys a replace's new copy sealed (`ReplacementKeys`), once it stopped.
    case discardReplacementKeys(id: String, paths: [String])
    /// Delete what a replacement fetched, once its transfer stopped.
    case discardReplacement(id: String, folder: String, temporary: String)
}
