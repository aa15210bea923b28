import StashCore

/// The sizes on disk of every loaded download's files at a start: each file under its final
/// name, and its part file where the download is not complete and the file not whole. Found
/// with as few stats as the disk allows: a download whose folder (`assets/<id>`) does not
/// exist, one queued and never started, has none of its files, and one listing of `assets/`
/// says so for all of them (100,000 queued downloads were 200,000 stats, one at a time).
struct LoadedFileSizes {
    /// Per file of every download in turn: the final file's size, the part file's.
    private var finals: [Int64?]
    private var parts: [Int64?]
    /// Where each download's files start in the two lists.
    private var offsets: [Int]

    /// `folders`: the names in `assetsDir`, nil when it could not be listed (then every
    /// download's files are looked at); `probe`: the sizes of regular files under a folder
    /// (`DiskGauge.regularFileSizes`).
    init(_ downloads: [Download], assetsDir: String, folders: Set<String>?, probe: ([String], String) -> [Int64?]) {
        offsets = []
        offsets.reserveCapacity(downloads.count)
        var total = 0
        var paths: [String] = []
        var slots: [Int] = []
        for download in downloads {
            offsets.append(total)
            if folders?.contains(download.id) ?? true {
                for (index, file) in download.files.enumerated() {
                    paths.append(download.id + "/" + file.path)
                    slots.append(total + index)
                }
            }
            total += download.files.count
        }
        finals = [Int64?](repeating: nil, count: total)
        for (slot, size) in zip(slots, probe(paths, assetsDir)) { finals[slot] = size }
        // Part files: where a file is not whole in a folder that exists, of a download that
        // is not complete (a complete one's missing bytes are not being fetched).
        paths = []
        var partSlots: [Int] = []
        for (number, download) in downloads.enumerated() where !download.state.holdsCompleteFiles && (folders?.contains(download.id) ?? true) {
            for (index, file) in download.files.enumerated() {
                let slot = offsets[number] + index
                if let size = finals[slot], file.size == nil || file.size == size { continue }
                paths.append(download.id + "/" + file.path + ".part")
                partSlots.append(slot)
            }
        }
        parts = [Int64?](repeating: nil, count: total)
        for (slot, size) in zip(partSlots, probe(paths, assetsDir)) { parts[slot] = size }
    }

    /// The sizes of the files of the download at `number` in the list given, in order.
    func sizes(of number: Int, fileCount: Int) -> (finals: ArraySlice<Int64?>, parts: ArraySlice<Int64?>) {
        let range = offsets[number]..<(offsets[number] + fileCount)
        return (finals[range], parts[range])
    }
}
