/// One page of ListDownloads. The token is opaque to clients; pass it back for the next page.
public struct DownloadPage: Equatable, Sendable {
    public var downloads: [Download]
    /// Empty on the last page.
    public var nextPageToken: String
    /// Matching downloads over all pages.
    public var total: Int
    /// What the matching downloads hold together, over all pages.
    public var totals: GroupTotals

    public init(downloads: [Download], nextPageToken: String, total: Int, totals: GroupTotals = GroupTotals()) {
        self.downloads = downloads
        self.nextPageToken = nextPageToken
        self.total = total
        self.totals = totals
    }
}
