import ArgumentParser
import StashClient

struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause a download, or all with --all.",
        discussion: "Its bytes stay on disk; `stash resume` continues where it stopped. Prints the record (or with --all the number paused).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: TargetOptions

    func run() async throws {
        let client = try await global.connect()
        if let id = target.id {
            let download = try await client.pause(id: id)
            if global.json { Output.json(download.publicRecord) } else { Output.line("paused \(download.id) (\(download.state.name))") }
        } else {
            let count: Int
            if let group = target.group, TargetOptions.daemonActsOnGroups(client) {
                count = try await client.pauseGroup(group)
            } else if target.group != nil {
                let pausable = try await target.downloads(client: client).filter { $0.state == .queued || $0.state.isActive }
                count = try await TargetOptions.forEach(pausable) { _ = try await client.pause(id: $0) }
            } else {
                count = try await client.pauseAll()
            }
            if global.json { Output.json(["affected": count]) } else { Output.line("paused \(count) download(s)") }
        }
    }
}
