/// What the engine has under way for one download, with the data only that step has. A download
/// does one of these at a time, so the data of one step cannot outlive it or be read in another:
/// an HLS download reads its playlists before it has files, then transfers them; a bundle syncs
/// its folders once its last file has landed.
enum DownloadActivity {
    /// Nothing: the download waits, is paused, is done, or failed.
    case idle
    /// An HLS download reading its playlists (PREPARING before it has files). `generation`
    /// tells this planning's result from that of an earlier one, which is dropped.
    case planning(generation: UInt64)
    /// The download holds its slot; these are the transfers of its files: the generation of
    /// each, by file index (none while its files wait for transfer slots). The generation
    /// tells a transfer's events from those of an earlier transfer of the same file.
    case transferring([Int: UInt64])
    /// Every file landed and the completion (a bundle's folder syncs) is under way.
    case completing

    /// The running transfers, none unless transferring.
    var transfers: [Int: UInt64] {
        if case .transferring(let transfers) = self { return transfers }
        return [:]
    }

    var isCompleting: Bool {
        if case .completing = self { return true }
        return false
    }

    var isPlanning: Bool {
        if case .planning = self { return true }
        return false
    }

    /// Whether the planning under way is the one numbered `generation`.
    func isPlanning(generation: UInt64) -> Bool {
        if case .planning(let current) = self { return current == generation }
        return false
    }

    /// A transfer of file `index` started, numbered `generation`.
    mutating func started(_ index: Int, generation: UInt64) {
        var transfers = self.transfers
        // Dropped from self first, so the dictionary has one owner and is not copied.
        self = .idle
        transfers[index] = generation
        self = .transferring(transfers)
    }

    /// The transfer of file `index` ended; the download still holds its slot.
    mutating func ended(_ index: Int) {
        guard case .transferring(var transfers) = self else { return }
        self = .idle
        transfers[index] = nil
        self = .transferring(transfers)
    }
}
