import ArgumentParser
import StashClient

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused, stopped or failed download, or with --all every paused one.",
        discussion: """
            --all and --group resume the PAUSED downloads, and with --failed the FAILED ones too \
            (a failed download fails again unless what failed it was fixed); never the STOPPED \
            ones, which only their own `stash resume ID` starts. Prints the record (or with \
            --all the number resumed).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: TargetOptions

    @Flag(help: "With --all or --group: resume the FAILED downloads too.")
    var failed = false

    func validate() throws {
        if failed, target.id != nil {
            throw ValidationError("--failed applies to --all and --group; `stash resume \(target.id ?? "")` resumes that download whatever its state")
        }
    }

    func run() async throws {
        let client = try await global.connect()
        if let id = target.id {
            let download = try await client.resume(id: id)
            if global.json { Output.json(download.publicRecord) } else { Output.line("resumed \(download.id) (\(download.state.name))") }
            return
        }
        let count: Int
        if let group = target.group, TargetOptions.daemonActsOnGroups(client) {
            count = try await client.resumeGroup(group, includeFailed: failed)
        } else if failed, target.group == nil {
            // The daemon's ResumeAll takes exactly these: PAUSED and FAILED, not STOPPED.
            count = try await client.resumeAll()
        } else {
            let resumable = try await target.downloads(client: client, states: failed ? [.paused, .failed] : [.paused])
            count = try await TargetOptions.forEach(resumable) { _ = try await client.resume(id: $0) }
        }
        if global.json { Output.json(["affected": count]) } else { Output.line("resumed \(count) download(s)") }
    }
}
