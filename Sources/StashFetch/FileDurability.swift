/// How a finished file is made durable before it gets its final name.
package enum FileDurability: Sendable {
    /// A `syncfs` shared with every file that finished meanwhile (`SyncBatcher`), the rename,
    /// and a second shared `syncfs` for the rename: the file is safe on its own the moment the
    /// transfer reports it complete (a single-file download). Two shared syncs instead of an
    /// fsync of the file and one of its folder: 16 downloads finishing together cost two
    /// syncs, not 32.
    case alone
    /// One `syncfs` shared with every file that finished meanwhile (`SyncBatcher`), then the
    /// rename; the folder is not fsynced. For a caller that fetches many files into the same
    /// folders and records none of them as complete until all are (a bundle, an HLS package),
    /// and makes their renames durable once at the end (`FetchWorkers.syncFolders`): a rename
    /// lost to a crash before that only means the file is fetched again.
    case grouped
}
