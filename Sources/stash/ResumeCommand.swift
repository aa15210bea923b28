import ArgumentParser
import StashClient

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused, stopped or failed download, or with --all every paused and failed one.",
        discussion: "Prints the record (or with --all the number resumed).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: TargetOptions

    func run() async throws {
        let client = try await global.connect()
        if let id = target.id {
            let download = try await client.resume(id: id)
            if global.json { Output.json(download.publicRecord) } else { Output.line("resumed \(download.id) (\(download.state.name))") }
        } else {
            // As ResumeAll: paused and failed ones, not an app's stops.
            let count: Int
            if let group = target.group {
                count = try await TargetOptions.forEach(inGroup: group, client: client, where: { $0 == .paused || $0 == .failed }) {
                    _ = try await client.resume(id: $0)
                }
            } else {
                count = try await client.resumeAll()
            }
            if global.json { Output.json(["affected": count]) } else { Output.line("resumed \(count) download(s)") }
        }
    }
}
