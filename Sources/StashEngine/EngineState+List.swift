import StashCore

/// ListDownloads, from the list index (`ListIndex`): a page costs what its own records cost.
extension EngineState {
    /// The downloads in `states` (every state when empty) and in `group` or a group under it
    /// (every download when empty), after the one with seq `after` in list order (queue order
    /// for the QUEUED filter alone), at most
    /// `size` of them; the count and totals are over all pages. The token of the next page
    /// is the seq of the last download on this one, empty on the last page.
    mutating func list(states: [DownloadState], size: Int, after: Int, group: String) -> DownloadPage {
        let mask = ListIndex.mask(states)
        // The QUEUED filter alone lists the queue in the order it runs (`queuePage`).
        let (page, more) =
            states == [.queued] ? queuePage(group: group, after: after, limit: size) : entries.page(mask: mask, group: group, after: after, limit: size)
        let matching = entries.totals(mask: mask, group: group)
        let views = page.map { entry in
            var view = layout.publicView(entry.download)
            view.files = []
            return view
        }
        return DownloadPage(
            downloads: views, nextPageToken: more ? String(page.last?.seq ?? after) : "", total: matching.count, totals: matching.totals)
    }
}
