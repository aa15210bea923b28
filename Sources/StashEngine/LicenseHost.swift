import StashCore

/// What the licence manager needs of the engine, and all it may do to it: read the settings
/// and a download as the engine holds it, and report what it learnt. `Engine` conforms; the state it reports to
/// decides every change (`EngineState+License`).
protocol LicenseHost: AnyObject, Sendable {
    /// The daemon's settings now (retries, timeouts of the exchanges).
    var config: DaemonConfig { get async }
    /// The downloads holding licence terms, in list order.
    func licensedInOrder() async -> [String]
    /// The download `id` now; NOT_FOUND when there is none.
    func licenseRecord(_ id: String) async throws -> Download
    /// Hands `report` to `EngineState` and carries out its decision; returns the download the
    /// report is about as decided, once that is committed (nil for the timer, or when it is gone).
    func report(_ report: LicenseReport) async throws -> Download?
}
