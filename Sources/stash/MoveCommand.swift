import ArgumentParser
import StashClient

struct MoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a queued download in the queue.",
        discussion: """
            --top or --bottom of the queued downloads of its priority, or --before/--after \
            another queued download, whose priority it takes. Only QUEUED downloads move; \
            `stash ls --queue` shows the order. Prints the record.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The id of the QUEUED download to move.")
    var id: String

    @Flag(help: "First among the queued downloads of its priority.")
    var top = false

    @Flag(help: "Last among the queued downloads of its priority.")
    var bottom = false

    @Option(help: ArgumentHelp("Just before this queued download.", valueName: "id"))
    var before: String?

    @Option(help: ArgumentHelp("Just after this queued download.", valueName: "id"))
    var after: String?

    func validate() throws {
        _ = try move()
    }

    private func move() throws -> QueueMove {
        var moves: [QueueMove] = []
        if top { moves.append(.top) }
        if bottom { moves.append(.bottom) }
        if let before { moves.append(.before(before)) }
        if let after { moves.append(.after(after)) }
        guard moves.count == 1, let move = moves.first else {
            throw ValidationError("give one of --top, --bottom, --before ID, --after ID (\(moves.count) given)")
        }
        return move
    }

    func run() async throws {
        let client = try await global.connect()
        let download = try await client.move(id: id, try move())
        if global.json { Output.json(download.publicRecord) } else { Output.line("moved \(download.id) (\(download.priority.name))") }
    }
}
