import ArgumentParser
import StashClient

struct ConfigSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change one setting; it is kept across daemon restarts.",
        discussion: "Keys and limits: " + DaemonConfig.keys.map { "\($0.name) \($0.range.lowerBound)...\($0.range.upperBound)" }.joined(separator: ", ")
            + "; rate-schedule 'DAYS HH:MM-HH:MM RATE; ...', e.g. 'Mon-Fri 09:00-18:00 1M; Sat,Sun 00:00-24:00 0' (docs/CLI.md).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The setting's key.", valueName: "key"))
    var key: String

    @Argument(help: ArgumentHelp("Its new value (an integer; a schedule for rate-schedule).", valueName: "value"))
    var value: String

    func run() async throws {
        let client = try await global.connect()
        let config = try await client.setConfig([(key: key, value: value)])
        let newValue = try config.text(forKey: key)
        if global.json {
            Output.json([key: Int64(newValue).map { $0 as Any } ?? newValue as Any])
        } else {
            Output.line("\(key) = \(newValue)")
        }
    }
}
