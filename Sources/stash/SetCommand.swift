import ArgumentParser
import StashClient

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a download after its add: its priority, its rate limit, its URL, its network and battery rules.",
        discussion: """
            --priority high|normal|low: higher priorities get a slot first; a queued download \
            goes to the end of its new priority's queue, and a running one keeps its slot unless \
            a higher one takes it (config preempt). --rate-limit RATE: the download's own limit \
            within the global one (500K, 2M, 0 = none); a running download slows or speeds up \
            at once. --uri URL: a single-file download's new URL (a renewed signed URL); the \
            bytes held are kept when the new URL serves the same content (same ETag or \
            Last-Modified), else it starts again. A running download restarts on it; a failed \
            one waits for `stash resume`. --network any|unmetered and --on-battery continue|pause: \
            its own rules for a metered network and battery power, in place of the config's \
            (docs/DESKTOP.md); it waits or goes on under them at once. Prints the record.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Option(help: ArgumentHelp("high, normal or low.", valueName: "priority"))
    var priority: String?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
        "Bytes per second over all of the download's transfers, within the global limit: 500K, 2M (1024-based), 0 = none.",
        valueName: "rate"))
    var rateLimit: String?

    @Option(help: ArgumentHelp("A single-file download's new http(s) URL.", valueName: "url"))
    var uri: String?

    @OptionGroup var desktop: DesktopRuleOptions

    func validate() throws {
        guard priority != nil || rateLimit != nil || uri != nil || desktop.given else {
            throw ValidationError(
                "give what to change: --priority high|normal|low, --rate-limit RATE, --uri URL, --network any|unmetered or --on-battery continue|pause")
        }
        try desktop.validate()
        if priority != nil { _ = try PriorityOption.parse(priority) }
        if let rateLimit { _ = try RateLimitOption.parse(rateLimit) }
    }

    func run() async throws {
        let client = try await global.connect()
        var download: Download?
        if let uri { download = try await client.setURI(id: id, uri) }
        if let rateLimit { download = try await client.setRateLimit(id: id, try RateLimitOption.parse(rateLimit)) }
        if desktop.given { download = try await client.setDesktopRules(id: id, network: desktop.networkRule, onBattery: desktop.batteryRule) }
        if priority != nil { download = try await client.setPriority(id: id, try PriorityOption.parse(priority)) }
        guard let download else { return }
        if global.json {
            Output.json(download.publicRecord)
        } else {
            let rate = download.rateLimit == 0 ? "none" : "\(Format.speed(download.rateLimit)) (\(RateText.format(download.rateLimit)))"
            Output.line("\(download.id): priority \(download.priority.name), rate limit \(rate) (\(download.state.name))")
        }
    }
}
