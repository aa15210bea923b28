import ArgumentParser
import StashClient

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a download after its add: its priority.",
        discussion: """
            --priority high|normal|low: higher priorities get a slot first; a queued download \
            goes to the end of its new priority's queue, and a running one keeps its slot unless \
            a higher one takes it (config preempt). Prints the record.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Option(help: ArgumentHelp("high, normal or low.", valueName: "priority"))
    var priority: String?

    func validate() throws {
        guard priority != nil else { throw ValidationError("give what to change: --priority high|normal|low") }
        _ = try PriorityOption.parse(priority)
    }

    func run() async throws {
        let client = try await global.connect()
        let download = try await client.setPriority(id: id, try PriorityOption.parse(priority))
        if global.json { Output.json(download.publicRecord) } else { Output.line("\(download.id): priority \(download.priority.name) (\(download.state.name))") }
    }
}
