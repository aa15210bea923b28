import ArgumentParser
import StashClient

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a download and delete its files, or all with --all.",
        discussion: "The download is removed from the registry; its id can be used again.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: TargetOptions

    func run() async throws {
        let client = try await global.connect()
        if let id = target.id {
            try await client.cancel(id: id)
            if global.json { Output.json(["id": id, "cancelled": true]) } else { Output.line("cancelled \(id)") }
        } else {
            let count: Int
            if let group = target.group {
                count = try await TargetOptions.forEach(inGroup: group, client: client, where: { $0 != .removing }) {
                    try await client.cancel(id: $0)
                }
            } else {
                count = try await client.cancelAll()
            }
            if global.json { Output.json(["affected": count]) } else { Output.line("cancelled \(count) download(s)") }
        }
    }
}
