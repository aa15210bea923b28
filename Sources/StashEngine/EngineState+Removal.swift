import StashCore

/// The end of a removal (CancelDownload, a removal found at start): once the download's
/// teardowns have ended, its files are deleted (`AssetDeletion`), then `.removed` forgets it.
extension EngineState {
    /// What deleting `id`'s files takes; nil unless it is REMOVING (another removal may have
    /// ended it, and a client added the id again meanwhile).
    func deletion(of id: String) -> AssetDeletion? {
        guard let entry = entries[id], entry.lifecycle.state == .removing else { return nil }
        return AssetDeletion(id: id, folder: layout.assetFolder(id: id), deletesKeys: entry.download.hls != nil)
    }

    /// Its files are gone: the download leaves the list and the dedupe index, and its record
    /// is deleted before the event says so. Nothing when it is not REMOVING (a concurrent
    /// removal ended it first).
    mutating func removed(_ id: String, into effects: inout [EngineEffect]) {
        guard let entry = entries[id], entry.lifecycle.state == .removing else { return }
        unindexContent(entry.download)
        entries[id] = nil
        effects.append(.commit(.delete(id), then: .removed(id: id)))
        log(.info, "download removed", ["id": "\(id)"], into: &effects)
    }
}
