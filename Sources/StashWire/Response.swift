import StashCore

/// The daemon's answer to one request: the request's id and either a result or an error.
package struct Response: Equatable, Sendable {
    package var id: UInt64
    package var result: Result<ResponseResult, StashError>

    package init(id: UInt64, result: Result<ResponseResult, StashError>) {
        self.id = id
        self.result = result
    }
}

/// What a successful response carries; which case depends on the operation (PROTOCOL.md).
package enum ResponseResult: Equatable, Sendable {
    /// Subscribe and other operations with nothing to return.
    case empty
    case hello(HelloResult)
    /// `created` is false when AddDownload found the same id and URI already there.
    case download(Download, created: Bool)
    case list(DownloadPage)
    case has(exists: Bool, state: DownloadState)
    case count(affected: Int)
    case stats(DownloadStats)
    case systemInfo(SystemInfo)
    case config(DaemonConfig)
    case verify(VerifyReport)
    case purge(PurgeResult)
    case manifestInfo(ManifestInfo)
    case export(ExportResult)
    /// GetSubtitles: the subtitle renditions kept, `uri` their playlist inside the asset folder,
    /// and the side-loaded text tracks, `path` their file inside it.
    case subtitles([ManifestInfo.RenditionInfo], textTracks: [TextTrack] = [])
    /// DownloadLicense, CheckLicense, RenewLicense, ReleaseLicense.
    case license(LicenseStatus)
    case playbackKey(PlaybackKey)
}

public struct HelloResult: Equatable, Sendable {
    public var protocolVersion: Int
    public var daemonVersion: String
    public var features: [String]

    package init(protocolVersion: Int = StashVersion.protocolVersion, daemonVersion: String = StashVersion.daemon, features: [String]) {
        self.protocolVersion = protocolVersion
        self.daemonVersion = daemonVersion
        self.features = features
    }
}

/// A frame from the daemon: a response to a request, or an event on a subscribed connection.
package enum ServerMessage: Equatable, Sendable {
    case response(Response)
    case event(DownloadEvent)
    /// An event of a kind this version does not know, from a later daemon: a client skips it
    /// (PROTOCOL.md section 7). Encoded, it is an Event with its seq and no kind.
    case laterEvent(seq: UInt64)
}
