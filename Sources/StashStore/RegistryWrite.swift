import StashCore

/// One caller's write, queued for the next group commit. Writes are applied in the order they
/// were submitted, so a save followed by a delete of the same id leaves no row.
enum RegistryWrite: Sendable {
    case save([Download])
    case delete([String])
    case config(DaemonConfig)

    /// Names the write in error messages.
    var summary: String {
        switch self {
        case .save(let downloads): return "save of \(downloads.count) download(s)"
        case .delete(let ids): return "delete of \(ids.count) download(s)"
        case .config: return "save of the config"
        }
    }
}
