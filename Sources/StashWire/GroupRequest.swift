/// PauseGroup, ResumeGroup and CancelGroup: the downloads of `group` and of the groups under it.
package struct GroupRequest: Equatable, Sendable {
    /// A group path as in AddDownload; the daemon refuses an empty one, so a client that
    /// forgets it never acts on every download.
    package var group: String
    /// ResumeGroup only: resume the FAILED downloads too. The daemon refuses it set with
    /// PauseGroup or CancelGroup rather than ignore what the client meant.
    package var includeFailed: Bool

    package init(group: String, includeFailed: Bool = false) {
        self.group = group
        self.includeFailed = includeFailed
    }
}
