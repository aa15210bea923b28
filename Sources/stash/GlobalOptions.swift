import ArgumentParser
import Foundation
import StashClient

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $STASH_SOCKET, else $XDG_RUNTIME_DIR/stash/stashd.sock, else /tmp/stash-$UID/stashd.sock).",
        valueName: "path"))
    var socket: String?

    @Flag(help: "Print JSON (one object per line) instead of text.")
    var json = false

    var socketPath: String {
        if let socket { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment["STASH_SOCKET"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return StashPaths.defaultSocketPath()
    }

    func connect() async throws -> StashClient {
        try await StashClient.connect(socketPath: socketPath, clientName: "stash-cli")
    }
}
