/// How a finished file is made durable before the transfer reports it complete. Either way
/// its data is durable (`fdatasync`) before it is renamed to its final name (`FileSyncer`).
package enum FileDurability: Sendable {
    /// The rename too is made durable (an `fsync` of each folder from the file's up to the one
    /// holding the asset's folder, shared with the other files renamed there meanwhile): the
    /// file is safe on its own the moment the transfer reports it complete (a single-file
    /// download).
    case alone
    /// The folders are not synced. For a caller that fetches many files into the same folders
    /// and records none of them as complete until all are (a bundle, an HLS package), and
    /// makes their renames durable once at the end (`FetchWorkers.syncFolders`): a rename
    /// lost to a crash before that only means the file is fetched again.
    case grouped
}
