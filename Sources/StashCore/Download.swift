import Foundation

/// A download as the engine keeps it and the registry stores it. The public record of
/// DESIGN.md is a view of this (see `progressPercent`, `remainingTime`). Its bytes are in
/// `files`: one for a single-file download, one per entry for a bundle.
public struct Download: Equatable, Sendable {
    public var id: String
    /// The URL of a single-file download; empty for a bundle.
    public var uri: String
    public var title: String
    public var state: DownloadState
    /// Bytes on disk for this download, partial or complete.
    public var downloadedBytes: Int64
    /// Total size, nil while unknown.
    public var totalBytes: Int64?
    /// Smoothed bytes per second; 0 when not transferring.
    public var speed: Int64
    public var quality: String
    public var hasSubtitles: Bool
    public var hasDRM: Bool
    /// Path of the asset relative to the data dir, so a moved data dir still resolves: the file
    /// of a single-file download, the folder of a bundle.
    public var assetPath: String
    public var error: DownloadError?
    /// Why the download is in its state when that needs saying ("paused by client", ...).
    public var stateReason: String
    public var createdAt: Date
    public var completedAt: Date?
    /// Expected SHA-256 of a single-file download, lowercase hex, empty when none was given.
    public var sha256: String
    public var headers: [HTTPHeader]
    /// A bundle (an asset of many files) rather than a single file.
    public var isBundle: Bool
    /// The files; a list of downloads leaves them out (the counts stay) to keep pages small.
    public var files: [DownloadFile]
    /// Files complete on disk, and files in all; kept by the engine as files finish.
    public var filesDone: Int
    public var filesTotal: Int
    /// The choice of renditions of an HLS download; nil for files and bundles. An HLS
    /// download has no files until its playlists are read (PREPARING), then one per segment.
    public var hls: HLSOptions?
    /// Paths, inside the asset folder, of the AES-128 keys its playlists name; each is also
    /// the key's id in the key store.
    package var hlsKeys: [String] = []
    /// Paths, inside the asset folder, of the playlists the daemon wrote for the package
    /// (`master.m3u8` first); they belong to the download as its files do.
    package var hlsPlaylists: [String] = []
    /// The licence server of a protected stream; nil when its keys (if any) are plain URLs.
    public var drm: DRMParams?
    /// What the licence server granted; nil while no licence is held (none asked for yet,
    /// or released).
    public var license: LicenseTerms?
    /// For each key path in `hlsKeys` whose key comes from a licence: its base64url key id.
    /// Such a key is sealed under `licenseKeyStoreID(kid)`, so one licence key named by
    /// several playlists is one entry.
    package var licenseKeyIDs: [String: String] = [:]
    /// The app's own bytes (series, chapter number, lesson path), at most 64 KiB, returned as
    /// given and never looked at.
    public var appData: [UInt8] = []
    /// A group path such as `one-piece/chapter-12`; empty for none. Lists filter by a group and
    /// the groups under it.
    public var group: String = ""
    /// Side-loaded subtitle files (`TextTrack`). Each is also a file of `files` (at its
    /// `path`), so it is fetched, verified and watched as the others are; an HLS download
    /// gets those files when its playlists are read.
    public var textTracks: [TextTrack] = []

    public init(
        id: String, uri: String, title: String = "", state: DownloadState = .queued,
        downloadedBytes: Int64 = 0, totalBytes: Int64? = nil, speed: Int64 = 0,
        quality: String = "", hasSubtitles: Bool = false, hasDRM: Bool = false,
        assetPath: String, error: DownloadError? = nil, stateReason: String = "",
        createdAt: Date = Date(), completedAt: Date? = nil, sha256: String = "",
        headers: [HTTPHeader] = [], isBundle: Bool = false, files: [DownloadFile] = [], hls: HLSOptions? = nil
    ) {
        self.hls = hls
        self.id = id
        self.uri = uri
        self.title = title
        self.state = state
        self.downloadedBytes = downloadedBytes
        self.totalBytes = totalBytes
        self.speed = speed
        self.quality = quality
        self.hasSubtitles = hasSubtitles
        self.hasDRM = hasDRM
        self.assetPath = assetPath
        self.error = error
        self.stateReason = stateReason
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.sha256 = sha256
        self.headers = headers
        self.isBundle = isBundle
        self.files = files
        self.filesDone = files.reduce(0) { $0 + ($1.done ? 1 : 0) }
        self.filesTotal = files.count
    }

    /// The key store id of the key at `path` (an entry of `hlsKeys`).
    package func keyStoreID(forKeyPath path: String) -> String {
        licenseKeyIDs[path].map(Self.licenseKeyStoreID) ?? path
    }

    /// Key store ids of licence keys are apart from key paths, which never start with "kid:".
    package static func licenseKeyStoreID(_ kid: String) -> String { "kid:" + kid }

    /// The distinct key ids the download's licence covers, sorted.
    package var licenseKids: [String] { Array(Set(licenseKeyIDs.values)).sorted() }

    /// An asset kept in its own folder (a bundle or an HLS package) rather than one file.
    package var isFolder: Bool { isBundle || hls != nil }

    /// Integer percent 0–100; 100 only when completed, so a client never sees 100 % of a
    /// download that is still being checked.
    public var progressPercent: Int {
        if state == .completed { return 100 }
        guard let total = totalBytes, total > 0 else { return 0 }
        return Int(min(99, max(0, downloadedBytes * 100 / total)))
    }

    /// Seconds left at the current speed, nil while unknown.
    public var remainingTime: Int64? {
        if state == .completed { return 0 }
        guard let total = totalBytes, speed > 0, total >= downloadedBytes else { return nil }
        return (total - downloadedBytes + speed - 1) / speed
    }
}
