import ArgumentParser
import StashClient

struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop a download with your own reason (STOPPED until `stash resume`).",
        discussion: """
            Like pause, its bytes stay on disk; unlike pause, the state is STOPPED and the reason \
            is shown as its state reason, so an app can tell its own stops (no Wi-Fi allowed, \
            user quota) from a user's pause. Prints the record.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Option(help: ArgumentHelp("Why it is stopped, shown as its state reason.", valueName: "text"))
    var reason: String = ""

    func run() async throws {
        let client = try await global.connect()
        let download = try await client.stop(id: id, reason: reason)
        if global.json {
            Output.json(download.publicRecord)
        } else {
            Output.line("stopped \(download.id) (\(download.state.name)): \(download.stateReason)")
        }
    }
}
