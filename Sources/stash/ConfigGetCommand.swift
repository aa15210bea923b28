import ArgumentParser
import StashClient

struct ConfigGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one setting, or all of them.",
        discussion: "Keys: " + DaemonConfig.keys.map { "\($0.name) (\($0.help))" }.joined(separator: "; ") + ".")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The setting's key; all settings when absent.", valueName: "key"))
    var key: String?

    func run() async throws {
        let client = try await global.connect()
        let config = try await client.config()
        let names = key.map { [$0] } ?? DaemonConfig.keys.map(\.name)
        var values: [(String, Int64)] = []
        for name in names { values.append((name, try config.value(forKey: name))) }
        if global.json {
            Output.json(Dictionary(uniqueKeysWithValues: values.map { ($0.0, $0.1 as Any) }))
        } else if key != nil, let only = values.first {
            Output.line("\(only.1)")
        } else {
            for (name, value) in values { Output.line("\(name) = \(value)") }
        }
    }
}
