import ArgumentParser
import Foundation
import StashClient

/// Options every command takes, before or after the command's name (`stash --json ls` and
/// `stash ls --json`): the root command declares them and every subcommand includes them. The
/// root parses first, over the whole command line, so one parse sees every occurrence and
/// the subcommands get its values.
struct GlobalOptions: ParsableArguments {
    /// Every `--socket` given: a path given before the command and another after it would
    /// otherwise leave one of them silently unused.
    @Option(name: .customLong("socket"), help: ArgumentHelp(
        "The daemon's socket (default: $STASH_SOCKET, else $XDG_RUNTIME_DIR/stash/stashd.sock, else /tmp/stash-$UID/stashd.sock). Before or after the command; given twice, the paths must be the same.",
        valueName: "path"))
    var sockets: [String] = []

    @Flag(help: "Print JSON (one object per line) instead of text.")
    var json = false

    func validate() throws {
        var distinct: [String] = []
        for path in sockets where !distinct.contains(path) { distinct.append(path) }
        if distinct.count > 1 {
            throw ValidationError(
                "--socket is given \(sockets.count) times with different paths ("
                    + distinct.map { "'\($0)'" }.joined(separator: ", ")
                    + "); give it once, before or after the command")
        }
    }

    var socketPath: String {
        if let socket = sockets.first { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment["STASH_SOCKET"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return StashPaths.defaultSocketPath()
    }

    func connect() async throws -> StashClient {
        try await StashClient.connect(socketPath: socketPath, clientName: "stash-cli")
    }
}
