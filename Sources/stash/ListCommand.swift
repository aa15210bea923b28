import ArgumentParser
import StashClient

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List downloads.",
        discussion: """
            Text: a table of ID, STATE, PROGRESS, SIZE, SPEED and TITLE/URI (with an HLS \
            download's time range after it, [1:00-2:00]); with --group it ends with the \
            group's totals. --queue lists the QUEUED downloads in the order they will get a \
            slot (higher priority first, then the queue's order; `stash move` changes it), with \
            their place and priority. --json: one record per line (with --group, then one line \
            {"totals": ...}).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp(
        "Only downloads in this state (e.g. downloading, completed, failed); repeat for several.",
        valueName: "state"))
    var state: [String] = []

    @Option(help: ArgumentHelp("Only this group and the groups under it (e.g. one-piece or one-piece/chapter-12).", valueName: "group"))
    var group: String?

    @Flag(help: "The QUEUED downloads in the order they will run.")
    var queue = false

    func validate() throws {
        _ = try parsedStates()
        if queue, !state.isEmpty { throw ValidationError("--queue lists the QUEUED downloads; leave out --state") }
    }

    func run() async throws {
        let client = try await global.connect()
        // The QUEUED filter alone is the run order (PROTOCOL.md, ListDownloads).
        let (downloads, totals) = try await client.allDownloads(states: queue ? [.queued] : try parsedStates(), group: group ?? "")
        if global.json {
            for download in downloads { Output.json(download.publicRecord) }
            if group != nil { Output.json(["totals": totals.record]) }
            return
        }
        if queue {
            var rows = [["#", "ID", "PRIORITY", "SIZE", "TITLE/URI"]]
            for (place, download) in downloads.enumerated() {
                rows.append(["\(place + 1)", download.id, download.priority.name, download.totalBytes.map(Format.bytes) ?? "?", Self.label(download)])
            }
            for line in Format.table(rows) { Output.line(line) }
            return
        }
        var rows = [["ID", "STATE", "PROGRESS", "SIZE", "SPEED", "TITLE/URI"]]
        for download in downloads {
            rows.append([
                download.id, download.state.name, "\(download.progressPercent)%",
                download.totalBytes.map(Format.bytes) ?? "?", Format.speed(download.speed), Self.label(download),
            ])
        }
        for line in Format.table(rows) { Output.line(line) }
        if let group {
            let states = totals.states.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.name)" }
            Output.line("group \(group): \(downloads.count) download(s), \(Format.bytes(totals.bytesDownloaded)) of \(Format.bytes(totals.bytesTotal)), "
                + "\(totals.filesDone) of \(totals.filesTotal) file(s) done" + (states.isEmpty ? "" : "; " + states.joined(separator: ", ")))
        }
    }

    /// The title or URI, with the time range of a download of part of a stream: "Film [1:00-2:00]".
    static func label(_ download: Download) -> String { download.label + rangeSuffix(download) }

    /// " [1:00-2:00]" for a download of part of a stream, else "".
    static func rangeSuffix(_ download: Download) -> String {
        guard let hls = download.hls, hls.hasRange else { return "" }
        return " [\(Format.range(start: hls.start, end: hls.end))]"
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
