import ArgumentParser
import StashClient

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List downloads.",
        discussion: "Text: a table of ID, STATE, PROGRESS, SIZE, SPEED and TITLE/URI. --json: one record per line.")

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp(
        "Only downloads in this state (e.g. downloading, completed, failed); repeat for several.",
        valueName: "state"))
    var state: [String] = []

    func validate() throws {
        _ = try parsedStates()
    }

    func run() async throws {
        let client = try await global.connect()
        let downloads = try await client.allDownloads(states: try parsedStates())
        if global.json {
            for download in downloads { Output.json(download.publicRecord) }
            return
        }
        var rows = [["ID", "STATE", "PROGRESS", "SIZE", "SPEED", "TITLE/URI"]]
        for download in downloads {
            rows.append([
                download.id, download.state.name, "\(download.progressPercent)%",
                download.totalBytes.map(Format.bytes) ?? "?", Format.speed(download.speed), download.label,
            ])
        }
        for line in Format.table(rows) { Output.line(line) }
    }

    private func parsedStates() throws -> [DownloadState] {
        try state.map { name in
            guard let parsed = DownloadState(name: name) else {
                throw ValidationError("--state '\(name)' is not a state; states: \(DownloadState.allCases.map(\.name).joined(separator: ", "))")
            }
            return parsed
        }
    }
}
