import ArgumentParser
import StashClient

struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete files and folders under assets/ that no download owns.",
        discussion: "Also deletes part files left next to complete files. Reports the files deleted and the bytes freed.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = try await global.connect()
        let result = try await client.purge()
        if global.json {
            Output.json(["filesDeleted": result.filesDeleted, "bytesFreed": result.bytesFreed, "paths": result.paths])
            return
        }
        for path in result.paths { Output.line("deleted \(path)") }
        Output.line("\(result.filesDeleted) file(s) deleted, \(Format.bytes(result.bytesFreed)) (\(result.bytesFreed) bytes) freed")
    }
}
