import ArgumentParser
import StashClient

struct ConfigSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change one setting; it is kept across daemon restarts.",
        discussion: "Keys and limits: " + DaemonConfig.keys.map { "\($0.name) \($0.range.lowerBound)...\($0.range.upperBound)" }.joined(separator: ", ") + ".")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The setting's key.", valueName: "key"))
    var key: String

    @Argument(help: ArgumentHelp("Its new value (an integer).", valueName: "value"))
    var value: String

    func run() async throws {
        let client = try await global.connect()
        let config = try await client.setConfig([(key: key, value: value)])
        let newValue = try config.value(forKey: key)
        if global.json { Output.json([key: newValue]) } else { Output.line("\(key) = \(newValue)") }
    }
}
