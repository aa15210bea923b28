import StashCore

/// SetDownload: fields of a download changed after its add (daemon feature `priority`); a
/// field left nil is left as it is.
package struct SetDownloadRequest: Equatable, Sendable {
    package var id: String
    package var priority: DownloadPriority?

    package init(id: String, priority: DownloadPriority? = nil) {
        self.id = id
        self.priority = priority
    }
}
