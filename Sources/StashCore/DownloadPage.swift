/// One page of ListDownloads. The token is opaque to clients; pass it back for the next page.
public struct DownloadPage: Equatable, Sendable {
    public var downloads: [Download]
    /// Empty on the last page.
    public var nextPageToken: String
    /// Matching downloads over all pages.
    public var total: Int

    public init(downloads: [Download], nextPageToken: String, total: Int) {
        self.downloads = downloads
        self.nextPageToken = nextPageToken
        self.total = total
    }
}
