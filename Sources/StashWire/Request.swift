import StashCore

/// A client's request: an id the response will carry, and one operation.
package struct Request: Equatable, Sendable {
    package var id: UInt64
    package var op: Operation

    package init(id: UInt64, op: Operation) {
        self.id = id
        self.op = op
    }
}

/// Every operation of protocol version 1. `unknown` is an op this daemon does not know (a
/// newer client, or none set); it is answered with UNIMPLEMENTED. `invalid` is a request that
/// is a well-formed protobuf message but holds a value this version cannot read (an unknown
/// state number, a string that is not UTF-8); it is answered with that error, under its own
/// id, and the connection stays open.
package enum Operation: Equatable, Sendable {
    case hello(HelloRequest)
    case addDownload(AddDownloadRequest)
    case getDownload(id: String)
    case listDownloads(ListDownloadsRequest)
    case hasDownload(id: String)
    case pause(id: String)
    case resume(id: String)
    case cancel(id: String)
    case pauseAll
    case resumeAll
    case cancelAll
    case subscribe(SubscribeRequest)
    case getStats
    case getSystemInfo
    case getConfig
    case setConfig([ConfigEntry])
    case verify(VerifyRequest)
    case purge
    /// Reads an HLS stream's playlists and says what it offers (`stash plan`).
    /// With `start` or `end`, the variants are sized for that time range.
    case getManifestInfo(uri: String, headers: [HTTPHeader], start: Double? = nil, end: Double? = nil)
    case export(ExportRequest)
    /// Languages of an HLS download's stream, or side-loaded text tracks of any download.
    case addSubtitles(id: String, languages: [String], textTracks: [TextTrack] = [])
    case removeSubtitles(id: String, languages: [String])
    case getSubtitles(id: String)
    case downloadLicense(id: String)
    case checkLicense(id: String)
    case renewLicense(id: String)
    case releaseLicense(id: String)
    case releaseAllLicenses
    /// `keyID`: 32 hex digits or base64url; "" for the licence's first key.
    case getPlaybackKey(id: String, keyID: String)
    /// Stops a download with the app's reason (STOPPED); only Resume lifts it.
    case stop(id: String, reason: String)
    /// Moves a completed download's files out to `moveTo` and drops its record.
    case forget(id: String, moveTo: String)
    /// Takes a file or folder already on disk as a COMPLETED download.
    case adopt(AdoptRequest)
    /// Pauses what of a group can be paused (daemon feature `group-ops`).
    case pauseGroup(GroupRequest)
    /// Resumes a group's PAUSED downloads, and its FAILED ones with `includeFailed`; never STOPPED ones.
    case resumeGroup(GroupRequest)
    /// Cancels every download of a group, deleting their files.
    case cancelGroup(GroupRequest)
    /// Changes fields of a download after its add (daemon feature `priority`).
    case setDownload(DownloadChanges)
    /// Moves a QUEUED download in the queue (daemon feature `priority`).
    case move(id: String, QueueMove)
    case unknown
    case invalid(StashError)

    /// The operation's name in PROTOCOL.md, for logs and errors.
    package var name: String {
        switch self {
        case .hello: return "Hello"
        case .addDownload: return "AddDownload"
        case .getDownload: return "GetDownload"
        case .listDownloads: return "ListDownloads"
        case .hasDownload: return "HasDownload"
        case .pause: return "Pause"
        case .resume: return "Resume"
        case .cancel: return "Cancel"
        case .pauseAll: return "PauseAll"
        case .resumeAll: return "ResumeAll"
        case .cancelAll: return "CancelAll"
        case .subscribe: return "Subscribe"
        case .getStats: return "GetStats"
        case .getSystemInfo: return "GetSystemInfo"
        case .getConfig: return "GetConfig"
        case .setConfig: return "SetConfig"
        case .verify: return "Verify"
        case .purge: return "Purge"
        case .getManifestInfo: return "GetManifestInfo"
        case .export: return "Export"
        case .addSubtitles: return "AddSubtitles"
        case .removeSubtitles: return "RemoveSubtitles"
        case .getSubtitles: return "GetSubtitles"
        case .downloadLicense: return "DownloadLicense"
        case .checkLicense: return "CheckLicense"
        case .renewLicense: return "RenewLicense"
        case .releaseLicense: return "ReleaseLicense"
        case .releaseAllLicenses: return "ReleaseAllLicenses"
        case .getPlaybackKey: return "GetPlaybackKey"
        case .stop: return "Stop"
        case .forget: return "Forget"
        case .adopt: return "Adopt"
        case .pauseGroup: return "PauseGroup"
        case .resumeGroup: return "ResumeGroup"
        case .cancelGroup: return "CancelGroup"
        case .setDownload: return "SetDownload"
        case .move: return "Move"
        case .unknown: return "unknown"
        case .invalid: return "invalid"
        }
    }
}

public struct AdoptRequest: Equatable, Sendable {
    /// Absolute: a regular file, or a folder of regular files.
    public var path: String
    public var id: String
    /// For a file: where it came from (then it is a single-file download of that URL).
    public var url: String
    /// For a file: its expected SHA-256, checked before it is taken.
    public var sha256: String
    /// Hard-link the files into the data dir instead of moving them.
    public var link: Bool

    public init(path: String, id: String, url: String = "", sha256: String = "", link: Bool = false) {
        self.path = path
        self.id = id
        self.url = url
        self.sha256 = sha256
        self.link = link
    }
}

package struct HelloRequest: Equatable, Sendable {
    package var protocolVersion: Int
    package var clientName: String

    package init(protocolVersion: Int = StashVersion.protocolVersion, clientName: String) {
        self.protocolVersion = protocolVersion
        self.clientName = clientName
    }
}

public struct AddDownloadRequest: Equatable, Sendable {
    /// Empty: the daemon picks one. Given: idempotent for the same URI.
    public var id: String
    public var uri: String
    public var title: String
    /// Expected digest, hex; empty for none.
    public var sha256: String
    public var headers: [HTTPHeader]
    /// A bundle's files; then `uri` is empty.
    public var files: [BundleFileSpec]
    /// An HLS download and its choice of renditions.
    public var hls: HLSOptions?
    public var drm: DRMParams?
    /// Add it even when another download already holds the same URI (or bundle files).
    public var force: Bool
    /// The app's own bytes, at most 64 KiB, returned as given.
    public var appData: [UInt8]
    /// A group path such as `one-piece/chapter-12`; empty for none.
    public var group: String
    /// Add `files` to the existing bundle `id` instead of adding a download.
    public var append: Bool
    /// Side-loaded subtitle files fetched with the download.
    public var textTracks: [TextTrack]
    /// Bytes per second over all of the download's transfers, within the global limit; 0 is
    /// none (daemon feature `rate-limit`).
    public var rateLimit: Int64 = 0
    /// What each file's content must be: `image`, `video`, `audio`, `text` or a MIME type
    /// (`application/pdf`); empty for any. A file that is not fails with a validation error
    /// naming it, and nothing of it is kept. Not for an HLS stream, whose segments are always
    /// checked for their container.
    public var expect: String = ""
    /// The fewest bytes each file may have; 0 for no minimum.
    public var minSize: Int64 = 0
    /// Where it waits in the queue (daemon feature `priority`).
    public var priority: DownloadPriority
    /// Fetch the COMPLETED single-file download that holds this id (or, without an id, this
    /// uri) again beside the old copy, and rename the new copy over it once complete; the
    /// old copy stays, COMPLETED, until then and when the replace fails (daemon feature
    /// `replace`). The record's `stateReason` says how the replace goes.
    public var replace = false
    /// Its own network and on-battery rules (daemon feature `desktop`, docs/DESKTOP.md); nil
    /// follows the daemon's config.
    public var network: NetworkRequirement?
    public var onBattery: BatteryPolicy?

    public init(id: String = "", uri: String, title: String = "", sha256: String = "", headers: [HTTPHeader] = [],
                files: [BundleFileSpec] = [], hls: HLSOptions? = nil, drm: DRMParams? = nil, force: Bool = false,
                appData: [UInt8] = [], group: String = "", append: Bool = false, textTracks: [TextTrack] = [],
                rateLimit: Int64 = 0, expect: String = "", minSize: Int64 = 0, priority: DownloadPriority = .normal) {
        self.rateLimit = rateLimit
        self.expect = expect
        self.minSize = minSize
        self.priority = priority
        self.append = append
        self.textTracks = textTracks
        self.force = force
        self.appData = appData
        self.group = group
        self.hls = hls
        self.drm = drm
        self.id = id
        self.uri = uri
        self.title = title
        self.sha256 = sha256
        self.headers = headers
        self.files = files
    }
}

/// An export: to a folder (`dir`, a package a player opens) or to one file (`file`).
package struct ExportRequest: Equatable, Sendable {
    package var id: String
    /// Absolute path of the folder to write; created, and it must not exist or be empty.
    /// Empty for an export to `file`.
    package var dir: String
    package var decrypt: Bool
    /// Absolute path of the one file to write; empty for an export to `dir`.
    package var file: String
    /// The container of `file`; nil takes it from the extension.
    package var format: ExportFormat?
    /// Replace a file at `file`.
    package var force: Bool
    /// A single-file download's `file` is a hard link to its own file.
    package var link: Bool

    package init(id: String, dir: String, decrypt: Bool = false) {
        self.init(id: id, dir: dir, decrypt: decrypt, file: "", format: nil, force: false, link: false)
    }

    package init(id: String, file: String, format: ExportFormat? = nil, force: Bool = false, link: Bool = false) {
        self.init(id: id, dir: "", decrypt: false, file: file, format: format, force: force, link: link)
    }

    package init(id: String, dir: String, decrypt: Bool, file: String, format: ExportFormat?, force: Bool, link: Bool) {
        self.id = id
        self.dir = dir
        self.decrypt = decrypt
        self.file = file
        self.format = format
        self.force = force
        self.link = link
    }
}

package struct ListDownloadsRequest: Equatable, Sendable {
    /// Empty: every state.
    package var states: [DownloadState]
    /// 0 means the default page size (100); at most 1000.
    package var pageSize: Int
    package var pageToken: String
    /// Empty: every download; else this group and the groups under it.
    package var group: String

    package init(states: [DownloadState] = [], pageSize: Int = 0, pageToken: String = "", group: String = "") {
        self.states = states
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.group = group
    }
}

package struct SubscribeRequest: Equatable, Sendable {
    /// Empty: every download.
    package var ids: [String]
    /// Percent between progress events of one download; 0 means 1.
    package var minProgressStep: Int
    /// Milliseconds between progress events of one download; 0 means 250.
    package var minIntervalMs: Int
    /// 0: no replay. Otherwise the daemon first sends the buffered events with seq >= this.
    package var replayFromSeq: UInt64
    /// Empty: every event. Otherwise only changes into these states, removals and lost-event
    /// notices: a client that waits for outcomes is not sent every step on the way.
    package var states: [DownloadState]

    package init(ids: [String] = [], minProgressStep: Int = 0, minIntervalMs: Int = 0, replayFromSeq: UInt64 = 0, states: [DownloadState] = []) {
        self.ids = ids
        self.minProgressStep = minProgressStep
        self.minIntervalMs = minIntervalMs
        self.replayFromSeq = replayFromSeq
        self.states = states
    }
}

package struct VerifyRequest: Equatable, Sendable {
    /// Also check each file's sha256 where one was given.
    package var deep: Bool
    /// Re-queue downloads with missing files; delete orphans and stale part files.
    package var repair: Bool
    /// Only report, even with `repair`.
    package var dryRun: Bool

    package init(deep: Bool = false, repair: Bool = false, dryRun: Bool = false) {
        self.deep = deep
        self.repair = repair
        self.dryRun = dryRun
    }
}

package struct ConfigEntry: Equatable, Sendable {
    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
