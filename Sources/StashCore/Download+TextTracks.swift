/// A download's files and its text tracks' files, told apart.
extension Download {
    /// Whether `file` is the file of one of its text tracks.
    package func isTextTrackFile(_ file: DownloadFile) -> Bool {
        !textTracks.isEmpty && textTracks.contains { $0.path == file.path }
    }

    /// The files the download was added for (a bundle's list, the single file, the segments),
    /// without its text tracks': what dedupe and an add with the same id compare.
    package var contentFiles: [DownloadFile] {
        textTracks.isEmpty ? files : files.filter { !isTextTrackFile($0) }
    }

    /// The files of its text tracks that `files` lacks, in the tracks' order.
    package var missingTextTrackFiles: [DownloadFile] {
        textTracks.filter { track in !files.contains { $0.path == track.path } }.map(\.file)
    }
}
