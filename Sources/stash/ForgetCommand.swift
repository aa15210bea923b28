import ArgumentParser
import Foundation
import StashClient

struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Move a completed download's files out of stash and drop its record.",
        discussion: """
            The files go to DIR/<file name> (a single file) or DIR/<id> (a bundle or an HLS \
            package) and are yours from then on; the record, its keys and its licence go as \
            with cancel. Nothing is overwritten. Prints where the files are.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The download's id.")
    var id: String

    @Option(name: .customLong("move-to"), help: ArgumentHelp("An existing folder to move the files into.", valueName: "dir"))
    var moveTo: String

    func run() async throws {
        let client = try await global.connect()
        let absolute = moveTo.hasPrefix("/") ? moveTo : FileManager.default.currentDirectoryPath + "/" + moveTo
        let download = try await client.forget(id: id, moveTo: absolute)
        if global.json {
            Output.json(download.publicRecord)
        } else {
            Output.line("forgot \(download.id); its files are at \(download.assetPath)")
        }
    }
}
