import Foundation

/// A download as the engine keeps it and the registry stores it. The public record of
/// DESIGN.md is a view of this (see `progressPercent`, `remainingTime`). Its bytes are in
/// `files`: one for a single-file download, one per entry for a bundle.
///
/// A value with one shared storage, copied on write as an array is: the engine's entry, the
/// record cache, a commit and an event hold one copy of a record until one of them changes
/// it, so 100,000 records at rest are held once, not once per holder (two inline copies of
/// 464 bytes each were most of a record's memory). The fields few downloads use (quality,
/// headers, HLS, DRM, licence, app data, text tracks) are apart, one reference that is nil for most.
public struct Download: Equatable, Sendable {
    /// Every field a download has, but the rare ones; in an order that packs them (the
    /// optionals and flags last).
    /// A field added here is compared in `differsOnlyInProgress` unless a change of state or
    /// progress moves it.
    private struct Fields: Equatable {
        var id: String
        var uri: String
        var title: String
        var assetPath: String
        var stateReason: String
        var sha256: String
        var group: String
        var downloadedBytes: Int64
        var speed: Int64
        /// Where it waits in the queue among downloads of its priority (`queuePosition`).
        var queuePosition: Int64 = 0
        var createdAt: Date
        var files: [DownloadFile]
        var filesDone: Int
        var filesTotal: Int
        var rare: RareBox?
        var error: DownloadError?
        var totalBytes: Int64?
        var completedAt: Date?
        var state: DownloadState
        var priority: DownloadPriority = .normal
        var hasSubtitles: Bool
        var hasDRM: Bool
        var isBundle: Bool
    }

    /// The fields few downloads use; nil in `Fields` while all of them are empty.
    private struct Rare: Equatable {
        var quality = ""
        var headers: [HTTPHeader] = []
        var hls: HLSOptions? = nil
        var hlsKeys: [String] = []
        var hlsPlaylists: [String] = []
        var drm: DRMParams? = nil
        var license: LicenseTerms? = nil
        var licenseKeyIDs: [String: String] = [:]
        var appData: [UInt8] = []
        var textTracks: [TextTrack] = []
        var rateLimit: Int64 = 0
        var expect = ""
        var minSize: Int64 = 0
        var network: NetworkRequirement? = nil
        var onBattery: BatteryPolicy? = nil

        var isEmpty: Bool { self == Rare() }
    }

    private final class RareBox: Equatable, Sendable {
        let rare: Rare
        init(_ rare: Rare) { self.rare = rare }

        static func == (lhs: RareBox, rhs: RareBox) -> Bool { lhs === rhs || lhs.rare == rhs.rare }
    }

    /// Changed only while this value is its one holder (`unique()`), so sharing it between
    /// threads is sharing an immutable object, as an array's buffer is.
    private final class Storage: @unchecked Sendable {
        // Not checked at run time for overlapping access: the compiler checks the accesses to
        // a `Download` (a value), and a storage is changed only through the one value that
        // holds it (`unique()`), so no access to it can overlap a change. The check was a
        // runtime call at every read of every field, the engine's most frequent call.
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    public static func == (lhs: Download, rhs: Download) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Whether the two differ at most in what a change of state or progress moves: the
    /// state, the byte counts and speed, the files done, the reason, the error, the time of
    /// completion, and the file list (whose facts the registry keeps apart). The registry
    /// then writes those columns alone (`DownloadRow.progressSQL`).
    ///
    /// Field by field, in place: a copy of one side's fields to compare whole retained each of
    /// its strings and arrays, and was the largest share of the registry thread's reference
    /// counting. Every field of `Fields` outside that list is compared here.
    public func differsOnlyInProgress(from other: Download) -> Bool {
        let (a, b) = (storage, other.storage)
        if a === b { return true }
        return a.fields.id == b.fields.id && a.fields.uri == b.fields.uri && a.fields.title == b.fields.title
            && a.fields.assetPath == b.fields.assetPath && a.fields.sha256 == b.fields.sha256 && a.fields.group == b.fields.group
            && a.fields.queuePosition == b.fields.queuePosition && a.fields.createdAt == b.fields.createdAt && a.fields.rare == b.fields.rare
            && a.fields.priority == b.fields.priority && a.fields.hasSubtitles == b.fields.hasSubtitles && a.fields.hasDRM == b.fields.hasDRM
            && a.fields.isBundle == b.fields.isBundle
    }

    /// Makes the storage this value's own before it changes.
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
    }

    /// Each rare field's setter comes here only for a new value: a record decoded or loaded
    /// sets every one of them, nearly always to its empty value, and each change built and
    /// compared two `Rare`s (9 % of the CLI's CPU waiting on 2,000 downloads).
    private mutating func changeRare(_ change: (inout Rare) -> Void) {
        var rare = storage.fields.rare?.rare ?? Rare()
        change(&rare)
        unique()
        storage.fields.rare = rare.isEmpty ? nil : RareBox(rare)
    }

    public var id: String {
        get { storage.fields.id }
        _modify {
            unique()
            yield &storage.fields.id
        }
    }

    /// The URL of a single-file download; empty for a bundle.
    public var uri: String {
        get { storage.fields.uri }
        _modify {
            unique()
            yield &storage.fields.uri
        }
    }

    public var title: String {
        get { storage.fields.title }
        _modify {
            unique()
            yield &storage.fields.title
        }
    }

    public var state: DownloadState {
        get { storage.fields.state }
        _modify {
            unique()
            yield &storage.fields.state
        }
    }

    /// Bytes on disk for this download, partial or complete.
    public var downloadedBytes: Int64 {
        get { storage.fields.downloadedBytes }
        _modify {
            unique()
            yield &storage.fields.downloadedBytes
        }
    }

    /// Total size, nil while unknown.
    public var totalBytes: Int64? {
        get { storage.fields.totalBytes }
        _modify {
            unique()
            yield &storage.fields.totalBytes
        }
    }

    /// Smoothed bytes per second; 0 when not transferring.
    public var speed: Int64 {
        get { storage.fields.speed }
        _modify {
            unique()
            yield &storage.fields.speed
        }
    }

    public var quality: String {
        get { storage.fields.rare?.rare.quality ?? "" }
        set { if newValue != quality { changeRare { $0.quality = newValue } } }
    }

    public var hasSubtitles: Bool {
        get { storage.fields.hasSubtitles }
        _modify {
            unique()
            yield &storage.fields.hasSubtitles
        }
    }

    public var hasDRM: Bool {
        get { storage.fields.hasDRM }
        _modify {
            unique()
            yield &storage.fields.hasDRM
        }
    }

    /// Path of the asset relative to the data dir, so a moved data dir still resolves: the file
    /// of a single-file download, the folder of a bundle.
    public var assetPath: String {
        get { storage.fields.assetPath }
        _modify {
            unique()
            yield &storage.fields.assetPath
        }
    }

    public var error: DownloadError? {
        get { storage.fields.error }
        _modify {
            unique()
            yield &storage.fields.error
        }
    }

    /// Why the download is in its state when that needs saying ("paused by client", ...).
    public var stateReason: String {
        get { storage.fields.stateReason }
        _modify {
            unique()
            yield &storage.fields.stateReason
        }
    }

    public var createdAt: Date {
        get { storage.fields.createdAt }
        _modify {
            unique()
            yield &storage.fields.createdAt
        }
    }

    public var completedAt: Date? {
        get { storage.fields.completedAt }
        _modify {
            unique()
            yield &storage.fields.completedAt
        }
    }

    /// Expected SHA-256 of a single-file download, lowercase hex, empty when none was given.
    public var sha256: String {
        get { storage.fields.sha256 }
        _modify {
            unique()
            yield &storage.fields.sha256
        }
    }

    /// A bundle (an asset of many files) rather than a single file.
    public var isBundle: Bool {
        get { storage.fields.isBundle }
        _modify {
            unique()
            yield &storage.fields.isBundle
        }
    }

    /// The files; a list of downloads leaves them out (the counts stay) to keep pages small.
    public var files: [DownloadFile] {
        get { storage.fields.files }
        _modify {
            unique()
            yield &storage.fields.files
        }
    }

    /// Files complete on disk, and files in all; kept by the engine as files finish.
    public var filesDone: Int {
        get { storage.fields.filesDone }
        _modify {
            unique()
            yield &storage.fields.filesDone
        }
    }

    public var filesTotal: Int {
        get { storage.fields.filesTotal }
        _modify {
            unique()
            yield &storage.fields.filesTotal
        }
    }

    /// A group path such as `one-piece/chapter-12`; empty for none. Lists filter by a group and
    /// the groups under it.
    public var group: String {
        get { storage.fields.group }
        _modify {
            unique()
            yield &storage.fields.group
        }
    }

    /// Higher priorities get a download slot first (`DownloadPriority`).
    public var priority: DownloadPriority {
        get { storage.fields.priority }
        _modify {
            unique()
            yield &storage.fields.priority
        }
    }

    /// The order among the queued downloads of one priority, lowest first; given by the engine
    /// as a download enters the queue or is moved, and kept by the registry. Not on the wire:
    /// a client sees the order as ListDownloads' order of QUEUED downloads.
    package var queuePosition: Int64 {
        get { storage.fields.queuePosition }
        _modify {
            unique()
            yield &storage.fields.queuePosition
        }
    }

    public var headers: [HTTPHeader] {
        get { storage.fields.rare?.rare.headers ?? [] }
        set { if newValue != headers { changeRare { $0.headers = newValue } } }
    }

    /// The choice of renditions of an HLS download; nil for files and bundles. An HLS
    /// download has no files until its playlists are read (PREPARING), then one per segment.
    public var hls: HLSOptions? {
        get { storage.fields.rare?.rare.hls ?? nil }
        set { if newValue != hls { changeRare { $0.hls = newValue } } }
    }

    /// Paths, inside the asset folder, of the AES-128 keys its playlists name; each is also
    /// the key's id in the key store.
    package var hlsKeys: [String] {
        get { storage.fields.rare?.rare.hlsKeys ?? [] }
        set { if newValue != hlsKeys { changeRare { $0.hlsKeys = newValue } } }
    }

    /// Paths, inside the asset folder, of the playlists the daemon wrote for the package
    /// (`master.m3u8` first); they belong to the download as its files do.
    package var hlsPlaylists: [String] {
        get { storage.fields.rare?.rare.hlsPlaylists ?? [] }
        set { if newValue != hlsPlaylists { changeRare { $0.hlsPlaylists = newValue } } }
    }

    /// The licence server of a protected stream; nil when its keys (if any) are plain URLs.
    public var drm: DRMParams? {
        get { storage.fields.rare?.rare.drm ?? nil }
        set { if newValue != drm { changeRare { $0.drm = newValue } } }
    }

    /// What the licence server granted; nil while no licence is held (none asked for yet,
    /// or released).
    public var license: LicenseTerms? {
        get { storage.fields.rare?.rare.license ?? nil }
        set { if newValue != license { changeRare { $0.license = newValue } } }
    }

    /// For each key path in `hlsKeys` whose key comes from a licence: its base64url key id.
    /// Such a key is sealed under `licenseKeyStoreID(kid)`, so one licence key named by
    /// several playlists is one entry.
    package var licenseKeyIDs: [String: String] {
        get { storage.fields.rare?.rare.licenseKeyIDs ?? [:] }
        set { if newValue != licenseKeyIDs { changeRare { $0.licenseKeyIDs = newValue } } }
    }

    /// The app's own bytes (series, chapter number, lesson path), at most 64 KiB, returned as
    /// given and never looked at.
    public var appData: [UInt8] {
        get { storage.fields.rare?.rare.appData ?? [] }
        set { if newValue != appData { changeRare { $0.appData = newValue } } }
    }

    /// Side-loaded subtitle files (`TextTrack`). Each is also a file of `files` (at its
    /// `path`), so it is fetched, verified and watched as the others are; an HLS download
    /// gets those files when its playlists are read.
    public var textTracks: [TextTrack] {
        get { storage.fields.rare?.rare.textTracks ?? [] }
        set { if newValue != textTracks { changeRare { $0.textTracks = newValue } } }
    }

    /// Bytes per second over all of this download's transfers; 0 is none. The global limit
    /// (`rate-limit`, `rate-schedule`) holds as well.
    public var rateLimit: Int64 {
        get { storage.fields.rare?.rare.rateLimit ?? 0 }
        set { if newValue != rateLimit { changeRare { $0.rateLimit = newValue } } }
    }

    /// What its files' content must be (`image`, `video`, `audio`, `text` or a MIME type) where
    /// a file does not say (`DownloadFile.expect`); empty for no check.
    public var expect: String {
        get { storage.fields.rare?.rare.expect ?? "" }
        set { if newValue != expect { changeRare { $0.expect = newValue } } }
    }

    /// The fewest bytes each of its files may have where a file does not say; 0 for none.
    public var minSize: Int64 {
        get { storage.fields.rare?.rare.minSize ?? 0 }
        set { if newValue != minSize { changeRare { $0.minSize = newValue } } }
    }

    /// Which networks it may use (docs/DESKTOP.md); nil follows the config's `network`.
    public var network: NetworkRequirement? {
        get { storage.fields.rare?.rare.network }
        set { if newValue != network { changeRare { $0.network = newValue } } }
    }

    /// What it does on battery; nil follows the config's `on-battery`.
    public var onBattery: BatteryPolicy? {
        get { storage.fields.rare?.rare.onBattery }
        set { if newValue != onBattery { changeRare { $0.onBattery = newValue } } }
    }

    public init(
        id: String, uri: String, title: String = "", state: DownloadState = .queued,
        downloadedBytes: Int64 = 0, totalBytes: Int64? = nil, speed: Int64 = 0,
        quality: String = "", hasSubtitles: Bool = false, hasDRM: Bool = false,
        assetPath: String, error: DownloadError? = nil, stateReason: String = "",
        createdAt: Date = Date(), completedAt: Date? = nil, sha256: String = "",
        headers: [HTTPHeader] = [], isBundle: Bool = false, files: [DownloadFile] = [], hls: HLSOptions? = nil
    ) {
        storage = Storage(Fields(
            id: id, uri: uri, title: title, assetPath: assetPath, stateReason: stateReason, sha256: sha256, group: "",
            downloadedBytes: downloadedBytes, speed: speed, createdAt: createdAt, files: files,
            filesDone: files.reduce(0) { $0 + ($1.done ? 1 : 0) }, filesTotal: files.count, rare: nil, error: error,
            totalBytes: totalBytes, completedAt: completedAt, state: state, hasSubtitles: hasSubtitles, hasDRM: hasDRM, isBundle: isBundle))
        if !headers.isEmpty || hls != nil || !quality.isEmpty {
            changeRare { rare in
                rare.quality = quality
                rare.headers = headers
                rare.hls = hls
            }
        }
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
