import ArgumentParser
import StashClient

struct ConfigGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one setting, or all of them.",
        discussion: "Keys: " + DaemonConfig.keys.map { "\($0.name) (\($0.help))" }.joined(separator: "; ")
            + "; rate-schedule (the global rate limit by weekday and hour, docs/CLI.md).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The setting's key; all settings when absent.", valueName: "key"))
    var key: String?

    func run() async throws {
        let client = try await global.connect()
        let config = try await client.config()
        let names = key.map { [$0] } ?? DaemonConfig.keyNames
        var values: [(String, String)] = []
        for name in names { values.append((name, try config.text(forKey: name))) }
        if global.json {
            // Integers stay numbers in JSON; the schedule is a string.
            Output.json(Dictionary(uniqueKeysWithValues: values.map { ($0.0, Int64($0.1).map { $0 as Any } ?? $0.1 as Any) }))
        } else if key != nil, let only = values.first {
            Output.line("\(only.1)")
        } else {
            for (name, value) in values { Output.line("\(name) = \(value)") }
        }
    }
}
