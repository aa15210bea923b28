import StashCore

/// Where a queued download stands in the queue: by priority (high first), then by its
/// position among that priority's downloads, then by list order (`DownloadEntry.seq`), which
/// orders the downloads of a registry from before positions (all 0) by creation.
struct QueueKey: Comparable, Hashable {
    var priority: DownloadPriority
    var position: Int64
    var seq: Int

    /// Whether `lhs` runs before `rhs`.
    static func < (lhs: QueueKey, rhs: QueueKey) -> Bool {
        if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
        if lhs.position != rhs.position { return lhs.position < rhs.position }
        return lhs.seq < rhs.seq
    }
}
