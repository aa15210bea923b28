import ArgumentParser
import StashClient

/// `--network` and `--on-battery`: a download's own rules for a metered network and battery
/// power, in place of the daemon's config (docs/DESKTOP.md).
struct DesktopRuleOptions: ParsableArguments {
    @Option(help: ArgumentHelp("any or unmetered: with unmetered it waits while the network is metered (default: config network).", valueName: "network"))
    var network: String?

    @Option(name: .customLong("on-battery"), help: ArgumentHelp(
        "continue or pause: with pause it waits while the machine runs on battery (default: config on-battery).", valueName: "policy"))
    var onBattery: String?

    var given: Bool { network != nil || onBattery != nil }

    func validate() throws {
        _ = try rules()
    }

    /// The rules given, nil where none was.
    func rules() throws -> (network: NetworkRequirement?, onBattery: BatteryPolicy?) {
        do {
            return (try network.map { try NetworkRequirement(parsing: $0, field: "--network") },
                    try onBattery.map { try BatteryPolicy(parsing: $0, field: "--on-battery") })
        } catch let error as StashError {
            throw ValidationError(error.message)
        }
    }

    var networkRule: NetworkRequirement? { try? rules().network }
    var batteryRule: BatteryPolicy? { try? rules().onBattery }
}
