import Foundation
import StashCore

/// A checked add (`AddRequest.validated()`): what the download is to hold, before it is known
/// whether it is new. `EngineState.decideAdd` compares it with the downloads there and makes
/// the record (`record(id:layout:createdAt:)`) when it is.
struct NewDownload {
    /// The id the client asked for; empty when the engine is to choose one.
    let id: String
    let uri: String
    let title: String
    /// The single file's sha256, normalized; empty when none was given.
    let sha256: String
    let headers: [HTTPHeader]
    let hls: HLSOptions?
    let drm: DRMParams?
    /// Fetch it again even when another download holds the same content.
    let force: Bool
    let appData: [UInt8]
    let group: String
    let isBundle: Bool
    /// The content's files (none for an HLS stream until its playlists are read).
    let files: [DownloadFile]
    let textTracks: [TextTrack]
    /// Bytes per second over all its transfers; 0 is none.
    var rateLimit: Int64 = 0
    /// Its own answers to the desktop's facts (docs/DESKTOP.md); nil follows the config.
    var network: NetworkRequirement?
    var onBattery: BatteryPolicy?
    /// The download's content rules (`ContentRules`), already given to `files`.
    var expect = ""
    var minSize: Int64 = 0
    var priority = DownloadPriority.normal
    /// Replace the download already holding this id or content (`EngineState+Replace`).
    var replace = false

    /// What makes two downloads the same content (`EngineState+Dedupe`).
    var contentKey: EngineState.ContentKey {
        EngineState.contentKey(uri: uri, files: files, isBundle: isBundle, hls: hls)
    }

    /// Whether `download` is this add's content: the same stream with the same choice and
    /// DRM, the same bundle file list, or the same single URL.
    func isSameContent(as download: Download) -> Bool {
        if hls != nil { return download.hls == hls && download.uri == uri && download.drm == drm }
        if isBundle { return download.isBundle && download.contentFiles.map { [$0.url, $0.path] } == files.map { [$0.url, $0.path] } }
        return !download.isBundle && download.hls == nil && download.uri == uri
    }

    /// The tracks of this add that `download` does not have (`TextTrack.isSame`), named for a
    /// message; nil when it has them all.
    func tracksLacking(in download: Download) -> String? {
        let lacking = textTracks.filter { track in !download.textTracks.contains { $0.isSame(as: track) } }
        return lacking.isEmpty ? nil : lacking.map { "\($0.language) (\($0.uri.prefix(200)))" }.joined(separator: ", ")
    }

    /// The content named for a message: a URL, or how many files.
    var described: String {
        uri.isEmpty ? "these \(files.count) files" : "\(uri.prefix(200))"
    }

    /// The record of the new download `id`, QUEUED; refused when a path under its folder would
    /// be longer than the file system takes.
    func record(id: String, layout: AssetLayout, createdAt: Date) throws -> Download {
        // An HLS download gets its tracks' files with the rest of its files, once its playlists are read.
        let allFiles = hls != nil ? files : files + textTracks.map(\.file)
        try layout.checkPathLengths(allFiles, id: id) { $0 < files.count ? "files[\($0)]" : "text_tracks" }
        var download = Download(
            id: id, uri: uri, title: title, state: .queued,
            assetPath: isBundle || hls != nil ? layout.relativeFolderPath(id: id) : layout.relativeFilePath(id: id, uri: uri),
            createdAt: createdAt, sha256: sha256, headers: headers, isBundle: isBundle, files: allFiles, hls: hls)
        download.drm = drm
        download.hasDRM = drm != nil
        download.appData = appData
        download.group = group
        download.textTracks = textTracks
        download.rateLimit = rateLimit
        download.network = network
        download.onBattery = onBattery
        download.expect = expect
        download.minSize = minSize
        download.priority = priority
        download.hasSubtitles = !textTracks.isEmpty
        download.totalBytes = SizeEstimate.total(of: download)
        return download
    }
}
