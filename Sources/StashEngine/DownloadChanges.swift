import StashCore

/// What one SetDownload changes in a download: every field given is checked before any is
/// applied (`EngineState+SetDownload`), so a request is applied whole or not at all.
package struct DownloadChanges: Equatable, Sendable {
    package var id: String
    package var priority: DownloadPriority?
    /// Bytes per second, 0 = none.
    package var rateLimit: Int64?
    /// A single-file download's new URL, or the bundle file's at `file`.
    package var uri: String?
    package var file: String?
    package var headers: HeaderChange?
    package var licenseHeaders: HeaderChange?
    /// Its own answers to the desktop's facts; nil leaves one as it is.
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
