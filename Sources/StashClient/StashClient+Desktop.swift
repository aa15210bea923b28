import StashCore
import StashWire

/// A download's own network and on-battery rules (daemon feature `desktop`, docs/DESKTOP.md).
extension StashClient {
    /// Gives a download its own network rule, on-battery rule or both (nil leaves one as it
    /// is): it waits or goes on under them at once. Returns its record.
    public func setDesktopRules(id: String, network: NetworkRequirement? = nil, onBattery: BatteryPolicy? = nil) async throws -> Download {
        guard network != nil || onBattery != nil else {
            throw StashError.invalidArgument("give a network rule, an on-battery rule or both")
        }
        return try await setDownload(id: id, network: network, onBattery: onBattery)
    }

    /// An older daemon ignores the rules: a download meant to wait on a metered network would not.
    func requireDesktop() throws {
        guard daemonInfo.features.contains("desktop") else {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not follow the desktop (feature \"desktop\"); it would ignore --network and --on-battery")
        }
    }
}
