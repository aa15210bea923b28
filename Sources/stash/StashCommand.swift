import ArgumentParser
import StashClient

/// The root command: the subcommands, and the options they all take, so those can come
/// before the command's name as well as after it.
struct StashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stash",
        abstract: "Control the stash offline-download daemon (stashd).",
        discussion: """
            Every command talks to a running stashd over its Unix socket (--socket, or \
            $STASH_SOCKET); --socket and --json go before or after the command. Exit status: \
            0 success; 1 a download failed, `has` found nothing, the daemon refused the \
            request, or a server it needed (a playlist's, a licence server) failed; 2 usage \
            error (including values the daemon rejects as invalid); 3 stashd cannot be reached; \
            130 Ctrl-C ended `wait` or `add --wait` (the downloads go on).
            """,
        version: StashVersion.daemon,
        subcommands: [
            AddCommand.self, ListCommand.self, ShowCommand.self, HasCommand.self,
            PauseCommand.self, StopCommand.self, ResumeCommand.self, CancelCommand.self, ForgetCommand.self, AdoptCommand.self,
            WaitCommand.self, WatchCommand.self, InfoCommand.self, ConfigCommand.self,
            VerifyCommand.self, PurgeCommand.self, PlanCommand.self, ExportCommand.self, SubtitlesCommand.self,
            LicenseCommand.self, SetCommand.self, MoveCommand.self,
        ])

    @OptionGroup var global: GlobalOptions
}
