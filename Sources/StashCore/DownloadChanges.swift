/// SetDownload: fields of a download changed after its add (daemon feature `priority`, and
/// `set-download` for the rate limit, `set-uri` for the URL, `set-file-uri` for a bundle file's,
/// `set-headers` for the headers, `desktop` for the network and on-battery rules); a field left
/// nil is left as it is. The daemon checks every field given before it applies any
/// (`EngineState+SetDownload`), so a request is applied whole or not at all.
package struct DownloadChanges: Equatable, Sendable {
    package var id: String
    package var priority: DownloadPriority?
    /// The download's own limit in bytes per second, 0 = none.
    package var rateLimit: Int64?
    /// A single-file download's new URL, or the bundle file's at `file`.
    package var uri: String?
    /// The path of the bundle file `uri` is for.
    package var file: String?
    /// The download's request headers (feature `set-headers`).
    package var headers: HeaderChange?
    /// Its licence requests' headers (feature `set-headers`).
    package var licenseHeaders: HeaderChange?
    /// Its own answers to the desktop's facts (feature `desktop`).
    package var network: NetworkRequirement?
    package var onBattery: BatteryPolicy?

    package init(
        id: String, priority: DownloadPriority? = nil, rateLimit: Int64? = nil, uri: String? = nil, file: String? = nil,
        headers: HeaderChange? = nil, licenseHeaders: HeaderChange? = nil, network: NetworkRequirement? = nil, onBattery: BatteryPolicy? = nil
    ) {
        self.id = id
        self.priority = priority
        self.rateLimit = rateLimit
        self.uri = uri
        self.file = file
        self.headers = headers
        self.licenseHeaders = licenseHeaders
        self.network = network
        self.onBattery = onBattery
    }
}
