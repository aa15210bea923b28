/// How a finished file is made durable before it gets its final name.
public enum FileDurability: Sendable {
    /// fsync of the file, rename, fsync of its folder: the file is safe on its own the moment
    /// the transfer reports it complete (a single-file download).
    case alone
    /// One `syncfs` shared with every file that finished meanwhile (`SyncBatcher`), then the
    /// rename; the folder is not fsynced. For a caller that fetches many files into the same
    /// folders and records none of them as complete until all are (a bundle, an HLS package),
    /// and makes their renames durable once at the end (`FetchWorkers.syncFolders`): a rename
    /// lost to a crash before that only means the file is fetched again.
    case grouped
}
