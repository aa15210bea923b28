import ArgumentParser
import Foundation
import StashClient

/// The CLI's exit statuses, and the one place errors become a message on stderr.
enum ExitStatus {
    /// A download failed, `has` said no, the daemon refused the request, or a server the
    /// daemon needed for it (a playlist's, a licence server) failed.
    static let failure: Int32 = 1
    /// The command line is wrong, or the daemon found a value in it invalid; stashd's usage
    /// errors exit with the same status.
    static let usage: Int32 = 2
    /// stashd itself cannot be reached (not running, or the connection to it was lost).
    static let unreachable: Int32 = 3

    /// An error from parsing the command line: help and version print and exit 0; everything
    /// else is a usage error (ArgumentParser would exit 64).
    static func report(parseError error: Error) -> Int32 {
        if StashCommand.exitCode(for: error) == .success {
            StashCommand.exit(withError: error)
        }
        if let suggestion = CommandSuggestion.find(in: Array(CommandLine.arguments.dropFirst())) {
            Output.error(suggestion.message)
            return usage
        }
        var message = StashCommand.fullMessage(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        Output.error(message)
        return usage
    }

    /// An error from running a command.
    static func report(runError error: Error) -> Int32 {
        switch error {
        case let exit as ExitCode:
            return exit.rawValue
        case let validation as ValidationError:
            // Found by a command once it ran (a list file's line, a refusal to go on without
            // --yes): the message says what to change, and the usage of the root command that
            // ArgumentParser would add says nothing about it.
            Output.error(validation.message)
            return usage
        case let stashError as StashError:
            Output.error(stashError.message)
            if stashError.isConnectionFailure { return unreachable }
            return stashError.code == .invalidArgument ? usage : failure
        default:
            // ArgumentParser's own: help (a command group run bare, `stash help X`) or usage.
            switch StashCommand.exitCode(for: error) {
            case .success: StashCommand.exit(withError: error)
            case .validationFailure: return report(parseError: error)
            default:
                Output.error("\(error)")
                return failure
            }
        }
    }
}
