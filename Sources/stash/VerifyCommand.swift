import ArgumentParser
import StashClient

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the registry with the files on disk.",
        discussion: """
            Reports completed downloads whose files are missing or have the wrong size (with \
            --deep, the wrong sha256), folders and files under assets/ that no download owns, \
            and part files left next to complete files. --repair re-queues the downloads with \
            missing or damaged files (fetching only those) and deletes the orphans; --dry-run \
            only reports. Exit 0 when nothing was found (or everything was repaired), 1 otherwise.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Also check each file's sha256 where one was given (reads every such file).")
    var deep = false

    @Flag(help: "Re-queue downloads with missing or damaged files and delete orphans.")
    var repair = false

    @Flag(name: .customLong("dry-run"), help: "Only report what --repair would do.")
    var dryRun = false

    func run() async throws {
        let client = try await global.connect()
        let report = try await client.verify(deep: deep, repair: repair, dryRun: dryRun)
        if global.json {
            Output.json(report.jsonObject)
        } else {
            for line in report.textLines { Output.line(line) }
        }
        if report.findings.contains(where: { !$0.repaired }) { throw ExitCode(ExitStatus.failure) }
    }
}
