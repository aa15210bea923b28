import StashCore

extension Download {
    /// Drops an HLS download's segment list so its playlists are read again when it is next
    /// scheduled; the segments on disk stay and are found complete by that planning. Its text
    /// tracks' files go too: the planning puts them back after the segments.
    mutating func forgetPackagePlan() {
        files = []
        filesTotal = 0
        filesDone = 0
    }
}
