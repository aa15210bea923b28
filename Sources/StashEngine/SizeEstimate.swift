import StashCore

/// A download's total size while some of its files' sizes are unknown: what progress and the
/// storage check count on. Exact once every size is known; never a trap on sizes a server or
/// a registry row gave (sums saturate).
enum SizeEstimate {
    /// The download's total, its text tracks' files counted by their known sizes only:
    /// subtitles are small, and guessing one from the average of a video would hold the
    /// download back for disk space it does not need. `planned`: as in `total(_:planned:)`.
    static func total(of download: Download, planned: Int64? = nil) -> Int64? {
        guard !download.textTracks.isEmpty else { return total(download.files, planned: planned) }
        var content: [DownloadFile] = []
        var tracks: Int64 = 0
        for file in download.files {
            if download.isTextTrackFile(file) {
                tracks = tracks.addingSaturating(file.size ?? 0)
            } else {
                content.append(file)
            }
        }
        return total(content, planned: planned).map { $0.addingSaturating(tracks) }
    }

    /// The known sizes plus their average for each unknown file (refined as files start), nil
    /// when none is known. With `planned`, an HLS package's size from its playlists: unknown
    /// files are guessed from the known ones of their own folder only (a subtitle segment is
    /// not a video segment), and the total is never below the playlists' figure until every
    /// size is known.
    static func total(_ files: [DownloadFile], planned: Int64? = nil) -> Int64? {
        guard let planned else { return byAverage(files) }
        var known: Int64 = 0
        var byFolder: [Substring: (sum: Int64, count: Int64, unknown: Int64)] = [:]
        for file in files {
            let folder = file.path[..<(file.path.lastIndex(of: "/") ?? file.path.startIndex)]
            if let size = file.size {
                known = known.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].sum = byFolder[folder, default: (0, 0, 0)].sum.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].count += 1
            } else {
                byFolder[folder, default: (0, 0, 0)].unknown += 1
            }
        }
        if byFolder.values.allSatisfy({ $0.unknown == 0 }) { return known }
        let guessed = byFolder.values.reduce(known) { total, folder in
            folder.count > 0 ? total.addingSaturating((folder.sum / folder.count).multipliedSaturating(by: folder.unknown)) : total
        }
        return max(guessed, planned)
    }

    private static func byAverage(_ files: [DownloadFile]) -> Int64? {
        var known: Int64 = 0
        var count: Int64 = 0
        for file in files {
            if let size = file.size {
                known = known.addingSaturating(size)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        if count == files.count { return known }
        return known.addingSaturating((known / count).multipliedSaturating(by: Int64(files.count) - count))
    }
}
