import StashClient

extension GroupTotals {
    /// The totals as `stash ls --group --json` prints them.
    var record: [String: Any] {
        [
            "bytesDownloaded": bytesDownloaded, "bytesTotal": bytesTotal, "filesDone": filesDone, "filesTotal": filesTotal,
            "states": Dictionary(uniqueKeysWithValues: states.map { ($0.key.name, $0.value) }),
        ]
    }
}
