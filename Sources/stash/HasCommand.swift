import ArgumentParser
import StashClient
import Foundation

struct HasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "has",
        abstract: "Tell whether a download exists.",
        discussion: "Prints 'yes STATE' and exits 0 when it exists, whatever its state; prints 'no' and exits 1 when it does not.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The download's id.", valueName: "id"))
    var id: String

    func run() async throws {
        let client = try await global.connect()
        let (exists, state) = try await client.hasDownload(id: id)
        if global.json {
            Output.json(["id": id, "exists": exists, "state": exists ? state.name as Any : NSNull()])
        } else {
            Output.line(exists ? "yes \(state.name)" : "no")
        }
        if !exists { throw ExitCode(ExitStatus.failure) }
    }
}
