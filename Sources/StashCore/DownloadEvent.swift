import Foundation

/// Something a subscriber is told. Sequence numbers grow by one per event of the daemon, so a
/// subscriber that reconnects can ask for a replay from the last one it saw.
public struct DownloadEvent: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The download's state changed; the record is the one just committed to the registry.
        case stateChanged(Download, previous: DownloadState)
        case progress(ProgressUpdate)
        /// The download and its files are gone (cancel).
        case removed(id: String)
        case license(LicenseEvent)
        /// An export to one file of the download moved on (`stash export ID FILE`).
        case exportProgress(ExportProgress)
        /// SetDownload changed the download's settings; the record is the one after the change,
        /// `changed` names what changed ("priority", "rate_limit", "uri", "headers",
        /// "license_headers").
        case settingsChanged(Download, changed: [String])
        /// This subscriber missed events (it read too slowly); not about one download.
        case eventsLost(EventsLost)
    }

    public var seq: UInt64
    public var time: Date
    public var kind: Kind

    public init(seq: UInt64, time: Date, kind: Kind) {
        self.seq = seq
        self.time = time
        self.kind = kind
    }

    /// The download this event is about; "" for `eventsLost`.
    public var downloadID: String {
        switch kind {
        case .stateChanged(let download, _): return download.id
        case .progress(let update): return update.id
        case .removed(let id): return id
        case .license(let event): return event.id
        case .exportProgress(let progress): return progress.id
        case .settingsChanged(let download, _): return download.id
        case .eventsLost: return ""
        }
    }
}

/// Bytes moved for one download, sent at most every 1 % or 250 ms (a subscriber may ask for less).
public struct ProgressUpdate: Equatable, Sendable {
    public var id: String
    public var downloadedBytes: Int64
    public var totalBytes: Int64?
    public var progressPercent: Int
    public var speed: Int64
    public var remainingTime: Int64?
    public var filesDone: Int
    public var filesTotal: Int

    public init(
        id: String, downloadedBytes: Int64, totalBytes: Int64?, progressPercent: Int, speed: Int64, remainingTime: Int64?,
        filesDone: Int = 0, filesTotal: Int = 0
    ) {
        self.id = id
        self.downloadedBytes = downloadedBytes
        self.totalBytes = totalBytes
        self.progressPercent = progressPercent
        self.speed = speed
        self.remainingTime = remainingTime
        self.filesDone = filesDone
        self.filesTotal = filesTotal
    }

    package init(_ download: Download) {
        self.init(
            id: download.id, downloadedBytes: download.downloadedBytes, totalBytes: download.totalBytes,
            progressPercent: download.progressPercent, speed: download.speed, remainingTime: download.remainingTime,
            filesDone: download.filesDone, filesTotal: download.filesTotal)
    }
}
