import StashCore

/// What a desktop notification says when a download completes or fails (config `notify`): one
/// per download with `all`; with `groups`, one per group once none of its downloads is queued
/// or active (a download without a group is its own). A value: `DesktopNotices` sends it.
struct CompletionNotice: Equatable {
    var summary: String
    var body: String

    /// The notice for a state change, or nil. `group`: the totals of the download's group
    /// after the change (nil when it has none).
    static func of(_ download: Download, previous: DownloadState, policy: NotifyPolicy, group: GroupTotals?) -> CompletionNotice? {
        guard policy != .none, previous.isActive, download.state == .completed || download.state == .failed else { return nil }
        let name = download.title.isEmpty ? download.id : download.title
        guard policy == .groups, !download.group.isEmpty, let group else {
            if download.state == .completed { return CompletionNotice(summary: "Download complete", body: name) }
            return CompletionNotice(summary: "Download failed", body: "\(name): \(download.error?.message ?? download.stateReason)")
        }
        let pending = group.states.filter { $0.key == .queued || $0.key.isActive }.values.reduce(0, +)
        guard pending == 0 else { return nil }
        let completed = group.states[.completed] ?? 0
        let failed = group.states[.failed] ?? 0
        return CompletionNotice(
            summary: failed == 0 ? "Downloads complete" : "Downloads finished, \(failed) failed",
            body: "\(download.group): \(completed) complete" + (failed == 0 ? "" : ", \(failed) failed"))
    }
}
