import ArgumentParser
import StashClient

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a download after its add: its priority, its rate limit, its URL.",
        discussion: """
            --priority high|normal|low: higher priorities get a slot first; a queued download \
            goes to the end of its new priority's queue, and a running one keeps its slot unless \
            a higher one takes it (config preempt). --rate-limit RATE: the download's own limit \
            within the global one (500K, 2M, 0 = none); a running download slows or speeds up \
            at once. --uri URL: a single-file download's new URL (a renewed signed URL), or with \
            --file PATH a bundle file's (stash show ID lists the paths); the bytes held are kept \
            when the new URL serves the same content (same ETag or Last-Modified, same size), \
            else the file starts again. A running download restarts on it; a failed one waits \
            for `stash resume`. Prints the record.
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

    func validate() throws {
        guard priority != nil || rateLimit != nil || uri != nil else {
            throw ValidationError("give what to change: --priority high|normal|low, --rate-limit RATE or --uri URL")
        }
        if file != nil, uri == nil {
            throw ValidationError("--file names the bundle file whose URL changes; give its new URL with --uri URL")
        }
        if let file, file.isEmpty { throw ValidationError("--file is empty; give a bundle file's path as stash show lists it") }
        if priority != nil { _ = try PriorityOption.parse(priority) }
        if let rateLimit { _ = try RateLimitOption.parse(rateLimit) }
    }

    func run() async throws {
        let client = try await global.connect()
        var download: Download?
        if let uri { download = try await client.setURI(id: id, uri, file: file) }
        if let rateLimit { download = try await client.setRateLimit(id: id, try RateLimitOption.parse(rateLimit)) }
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
