import ArgumentParser
import StashClient

struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until downloads complete or fail.",
        discussion: """
            Follows each download until it is COMPLETED or FAILED (or LICENSE_EXPIRED, \
            DRM_EXPIRED, or cancelled). On a terminal draws a progress bar per download; \
            otherwise (or with --json) prints a JSON record per download at start and per \
            change; with --quiet nothing but the errors. Exit 0 when all completed, 1 otherwise. \
            Ctrl-C stops only the waiting (exit 130): stashd goes on with the downloads.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The downloads' ids.", valueName: "id"))
    var ids: [String]

    @Flag(name: .shortAndLong, help: "Print nothing but errors: the exit status says whether every download completed.")
    var quiet = false

    func validate() throws {
        if ids.isEmpty { throw ValidationError("give at least one download id") }
    }

    func run() async throws {
        let client = try await global.connect()
        // Quiet, only the outcomes are waited for: the daemon sends no step or progress report
        // on the way, and each outcome is checked against the download's record.
        let outcomesOnly = quiet && client.daemonInfo.features.contains("subscribe-states")
        let events = try await client.events(ids: ids, states: outcomesOnly ? DownloadWaiter.outcomes : [])
        let completed = try await DownloadWaiter.wait(
            for: ids, client: client, events: events, json: global.json, quiet: quiet, outcomesOnly: outcomesOnly)
        if !completed { throw ExitCode(ExitStatus.failure) }
    }
}
