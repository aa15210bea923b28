import StashCore

/// A page of ListDownloads as a client asked for it, checked: the first bad field is the error,
/// naming it and its limit.
struct ListRequest: Equatable {
    static let defaultPageSize = 100
    static let maxPageSize = 1000

    /// Every state when empty.
    let states: [DownloadState]
    /// How many downloads at most: the client's page size, or the default for 0.
    let size: Int
    /// The seq of the last download of the page before (a page token), -1 for the first page.
    let after: Int
    /// The downloads of this group and the groups under it; every download when empty.
    let group: String

    init(states: [DownloadState], pageSize: Int, pageToken: String, group: String) throws {
        try DownloadRequestRules.validateGroup(group, field: "group filter")
        guard pageSize >= 0, pageSize <= Self.maxPageSize else {
            throw StashError.invalidArgument("page_size \(pageSize) is outside 0...\(Self.maxPageSize)")
        }
        var after = -1
        if !pageToken.isEmpty {
            guard let value = Int(pageToken), value >= 0 else {
                throw StashError.invalidArgument("page_token '\(pageToken.prefix(64))' is not a token from a previous ListDownloads")
            }
            after = value
        }
        self.states = states
        self.size = pageSize == 0 ? Self.defaultPageSize : pageSize
        self.after = after
        self.group = group
    }
}
