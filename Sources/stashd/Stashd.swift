import ArgumentParser
import Dispatch
import Foundation
import Logging
import StashCore
import StashDaemon

/// The stash daemon: keeps downloads on disk for local apps, speaking the protocol of
/// PROTOCOL.md on a Unix socket.
@main
struct Stashd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stashd",
        abstract: "The stash offline-download daemon.",
        discussion: """
            Runs in the foreground until SIGTERM or SIGINT, which stop transfers, persist \
            and exit 0; the next start resumes what was downloading.
            """,
        version: StashVersion.daemon)

    @Option(help: ArgumentHelp("Unix socket to listen on.", valueName: "path"))
    var socket: String = StashPaths.defaultSocketPath()

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where the registry and the downloaded files live.", valueName: "dir"))
    var dataDir: String = StashPaths.defaultDataDir()

    @Option(name: .customLong("max-parallel"), help: ArgumentHelp("Downloads transferring at once (default 3, or the value last set with `stash config set`).", valueName: "n"))
    var maxParallel: Int?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        if let maxParallel, !(1...64).contains(maxParallel) {
            throw ValidationError("--max-parallel \(maxParallel) is outside 1...64")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "stashd")
        // Installed before the socket exists, so no client can see a daemon that would miss
        // its SIGTERM.
        let termination = TerminationSignals(SIGTERM, SIGINT)
        let daemon: Daemon
        do {
            daemon = try await Daemon.start(
                socketPath: absolute(socket), dataDir: absolute(dataDir), maxParallel: maxParallel, logger: logger)
        } catch let error as StashError {
            FileHandle.standardError.write(Data("stashd: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        let signal = await termination.next()
        logger.notice("stopping", metadata: ["signal": "\(signal)"])
        await daemon.stop()
        logger.notice("stopped")
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
