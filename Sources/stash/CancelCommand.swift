import ArgumentParser
import StashClient

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a download and delete its files, or all with --all.",
        discussion: """
            The download is removed from the registry; its id can be used again. --all and \
            --group delete many downloads' files, completed ones too: on a terminal they say \
            how many and ask first; --yes does not ask, and is needed when stdin is not a \
            terminal.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: TargetOptions

    @Flag(name: [.customShort("y"), .long], help: "With --all or --group: do not ask first.")
    var yes = false

    func run() async throws {
        let client = try await global.connect()
        if let id = target.id {
            try await client.cancel(id: id)
            if global.json { Output.json(["id": id, "cancelled": true]) } else { Output.line("cancelled \(id)") }
            return
        }
        // The downloads are listed to ask about them, and for a daemon without CancelGroup,
        // which is sent one Cancel per download.
        let oneByOne = target.group != nil && !TargetOptions.daemonActsOnGroups(client)
        let doomed: [Download] = if !yes || oneByOne {
            try await target.downloads(client: client).filter { $0.state != .removing }
        } else {
            []
        }
        if !yes, !doomed.isEmpty {
            let what = Self.describe(doomed)
            switch Confirmation.ask("Cancel \(what) and delete their files?") {
            case .yes:
                break
            case .no:
                Output.error("nothing cancelled")
                throw ExitCode(ExitStatus.failure)
            case .cannotAsk:
                throw ValidationError(
                    "cancel \(target.many) would delete \(what) and their files; stdin is not a terminal to ask on, so add --yes to cancel them")
            }
        }
        let count: Int
        if let group = target.group {
            count = if oneByOne {
                try await TargetOptions.forEach(doomed) { try await client.cancel(id: $0) }
            } else {
                try await client.cancelGroup(group)
            }
        } else {
            count = try await client.cancelAll()
        }
        if global.json { Output.json(["affected": count]) } else { Output.line("cancelled \(count) download(s)") }
    }

    /// "11 download(s) (9 COMPLETED, 2 DOWNLOADING; 1.2 GiB on disk)".
    static func describe(_ downloads: [Download]) -> String {
        var counts: [DownloadState: Int] = [:]
        for download in downloads { counts[download.state, default: 0] += 1 }
        let states = counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.name)" }
        let bytes = downloads.saturatingSum(\.downloadedBytes)
        return "\(downloads.count) download(s) (\(states.joined(separator: ", ")); \(Format.bytes(bytes)) on disk)"
    }
}
