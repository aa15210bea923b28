import ArgumentParser

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Read or change the daemon's settings.",
        subcommands: [ConfigGetCommand.self, ConfigSetCommand.self])
}
