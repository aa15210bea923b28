import ArgumentParser
import StashClient

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a download after its add: its priority, its rate limit, its URL, its headers, its network and battery rules.",
        discussion: """
            --priority high|normal|low: higher priorities get a slot first; a queued download \
            goes to the end of its new priority's queue, and a running one keeps its slot unless \
            a higher one takes it (config preempt). --rate-limit RATE: the download's own limit \
            within the global one (500K, 2M, 0 = none); a running download slows or speeds up \
            at once. --uri URL: a single-file download's new URL (a renewed signed URL), or with \
            --file PATH a bundle file's (stash show ID lists the paths); the bytes held are kept \
            when the new URL serves the same content (same ETag or Last-Modified, same size), \
            else the file starts again. A running download restarts on it; a failed one waits \
            for `stash resume`. --header 'Name: value' (repeatable) replaces the header of that \
            name or adds it, --clear-headers drops them all first; transfers started from then \
            on carry them, and a running download restarts on them keeping its bytes. \
            --license-header and --clear-license-headers do the same for its licence requests; \
            a licence whose renewal was refused is asked for again at once. --network \
            any|unmetered and --on-battery continue|pause: its own rules for a metered network and \
            battery power, in place of the config's (docs/DESKTOP.md); it waits or goes on under \
            them at once. The options given are one request, applied whole: when one is refused, none
            is. Prints the record.
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

    @Option(help: ArgumentHelp("A single-file download's new http(s) URL, or with --file a bundle file's.", valueName: "url"))
    var uri: String?

    @Option(help: ArgumentHelp("The path of the bundle file --uri is for, as stash show lists it.", valueName: "path"))
    var file: String?

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "A request header, 'Name: value', replacing the download's header of that name; repeat for more.", valueName: "header"))
    var headers: [String] = []

    @Flag(name: .customLong("clear-headers"), help: "Drop the download's request headers (before any --header).")
    var clearHeaders = false

    @Option(name: .customLong("license-header"), help: ArgumentHelp(
        "A header for the licence server, 'Name: value', replacing the one of that name; repeat for more.", valueName: "header"))
    var licenseHeaders: [String] = []

    @Flag(name: .customLong("clear-license-headers"), help: "Drop the licence requests' headers (before any --license-header).")
    var clearLicenseHeaders = false

    @OptionGroup var desktop: DesktopRuleOptions

    func validate() throws {
        let given = priority != nil || rateLimit != nil || uri != nil || !headers.isEmpty || clearHeaders || !licenseHeaders.isEmpty
            || clearLicenseHeaders || desktop.given
        guard given else {
            throw ValidationError(
                "give what to change: --priority high|normal|low, --rate-limit RATE, --uri URL, --header 'Name: value', --clear-headers, --license-header 'Name: value', --clear-license-headers, --network any|unmetered or --on-battery continue|pause"
            )
        }
        if file != nil, uri == nil {
            throw ValidationError("--file names the bundle file whose URL changes; give its new URL with --uri URL")
        }
        try desktop.validate()
        if let file, file.isEmpty { throw ValidationError("--file is empty; give a bundle file's path as stash show lists it") }
        if priority != nil { _ = try PriorityOption.parse(priority) }
        if let rateLimit { _ = try RateLimitOption.parse(rateLimit) }
        _ = try parsed(headers, option: "--header")
        _ = try parsed(licenseHeaders, option: "--license-header")
    }

    private func parsed(_ lines: [String], option: String) throws -> [HTTPHeader] {
        do {
            return try lines.map { try HTTPHeader(parsing: $0) }
        } catch let error as StashError {
            throw ValidationError("\(option): \(error.message)")
        }
    }

    func run() async throws {
        let client = try await global.connect()
        // One request: stashd applies every field or, when one is refused, none.
        let download = try await client.setDownload(
            id: id, priority: try priority.map { try PriorityOption.parse($0) }, rateLimit: try rateLimit.map { try RateLimitOption.parse($0) },
            uri: uri, file: file, headers: try parsed(headers, option: "--header"), clearHeaders: clearHeaders,
            licenseHeaders: try parsed(licenseHeaders, option: "--license-header"), clearLicenseHeaders: clearLicenseHeaders,
            network: desktop.networkRule, onBattery: desktop.batteryRule)
        if global.json {
            Output.json(download.publicRecord)
        } else {
            let rate = download.rateLimit == 0 ? "none" : "\(Format.speed(download.rateLimit)) (\(RateText.format(download.rateLimit)))"
            Output.line("\(download.id): priority \(download.priority.name), rate limit \(rate) (\(download.state.name))")
        }
    }
}
