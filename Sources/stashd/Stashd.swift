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
            and exit 0; the next start resumes what was downloading. Exit status: 0 after a \
            clean stop; 1 when it cannot start (the message says why); 2 usage error, as for \
            the `stash` command line. Started by a systemd socket unit (LISTEN_FDS), it serves \
            the socket it is given; with NOTIFY_SOCKET it sends READY=1, STATUS=, STOPPING=1 \
            and, with WATCHDOG_USEC, WATCHDOG=1.
            """,
        version: StashVersion.daemon)

    /// A usage error exits 2, the status `stash` uses for one, not ArgumentParser's 64
    /// (EX_USAGE): a script that runs both reads one rule.
    static let usageStatus: Int32 = 2

    /// As ArgumentParser's `main()`, with usage errors exiting `usageStatus`.
    static func main() async {
        let command: Stashd
        do {
            command = try parse()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            FileHandle.standardError.write(Data("stashd: \(message)\n".utf8))
            Foundation.exit(usageStatus)
        }
        do {
            try await command.run()
        } catch {
            exit(withError: error)
        }
        endAfterCleanStop()
    }

    /// Ends the process once `run` has stopped the daemon, without exit(3)'s teardown. Threads
    /// are still winding down then (the file pool's, the disk watch's, libdispatch's workers),
    /// and exit(3) runs the libraries' destructors under them. A test's stashd crashed on its
    /// way out after SIGTERM once in a CI run, in no Swift trap: its report named only stashd,
    /// libc, libstdc++, libdispatch and Foundation. Nothing is left to do at that point: the
    /// registry syncs every commit and the stop wrote what it had to.
    private static func endAfterCleanStop() -> Never {
        fflush(nil)
        _exit(0)
    }

    @Option(help: ArgumentHelp("Unix socket to listen on.", valueName: "path"))
    var socket: String = StashPaths.defaultSocketPath()

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where the registry and the downloaded files live.", valueName: "dir"))
    var dataDir: String = StashPaths.defaultDataDir()

    @Option(name: .customLong("max-parallel"), help: ArgumentHelp("Downloads transferring at once (default 3, or the value last set with `stash config set`).", valueName: "n"))
    var maxParallel: String?

    @Option(name: .customLong("files-per-download"), help: ArgumentHelp("Transfers at once inside one download (default 5).", valueName: "n"))
    var filesPerDownload: String?

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Transfers at once over all downloads (default 32).", valueName: "n"))
    var maxConnections: String?

    @Option(name: .customLong("max-connections-per-host"), help: ArgumentHelp("Transfers at once to one host (default 16).", valueName: "n"))
    var maxConnectionsPerHost: String?

    @Option(name: .customLong("storage-reserve"), help: ArgumentHelp("Bytes of free disk space downloads leave untouched (default 67108864).", valueName: "bytes"))
    var storageReserve: String?

    @Option(help: ArgumentHelp(
        "Desktop notifications when downloads complete or fail: none, groups (one per group) or all (default none, or the value last set).",
        valueName: "policy"))
    var notify: String?

    /// Settings given as flags, applied over the stored config at start (same keys and limits
    /// as `stash config set`).
    private var overrides: [(key: String, value: String)] {
        [("max-parallel", maxParallel), ("files-per-download", filesPerDownload), ("max-connections", maxConnections),
         ("max-connections-per-host", maxConnectionsPerHost), ("storage-reserve", storageReserve), ("notify", notify)]
            .compactMap { key, value in value.map { (key, $0) } }
    }

    @Option(
        name: .customLong("busy-poll-us"),
        help: ArgumentHelp(
            "Keep one CPU awake this many microseconds after each request, at idle priority, so a client's next call is not slowed by the CPU waking from idle (0 to \(Self.maxBusyPoll); default 0, off).",
            valueName: "us"))
    var busyPollMicroseconds: Int = 0
    static let maxBusyPoll = 100_000

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @Option(
        name: .customLong("exit-when-idle"),
        help: ArgumentHelp(
            "Exit 0 (state persisted) after this many seconds with no client connected and no download preparing, queued or transferring, nor a licence renewal due (1 to \(Self.maxIdleSeconds); default: never). Meant for a socket unit, which starts stashd again on the next connection.",
            valueName: "seconds"))
    var exitWhenIdle: Int?
    static let maxIdleSeconds = 86_400 * 365

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        guard (0...Self.maxBusyPoll).contains(busyPollMicroseconds) else {
            throw ValidationError("--busy-poll-us \(busyPollMicroseconds) is outside 0...\(Self.maxBusyPoll)")
        }
        if let exitWhenIdle, !(1...Self.maxIdleSeconds).contains(exitWhenIdle) {
            throw ValidationError("--exit-when-idle \(exitWhenIdle) is outside 1...\(Self.maxIdleSeconds)")
        }
        var config = DaemonConfig()
        for (key, value) in overrides {
            do {
                try config.set(key, to: value)
            } catch let error as StashError {
                throw ValidationError("--\(key): \(error.message)")
            }
        }
    }

    func run() async throws {
        HeapArenas.limit()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let style: DaemonLogHandler.Style = DaemonLogHandler.stderrIsJournal() ? .journal : .plain
        LoggingSystem.bootstrap { label in
            var handler = DaemonLogHandler(label: label, style: style)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "stashd")
        let notifier = ServiceNotifier(logger: logger)
        // Installed before the socket exists, so no client can see a daemon that would miss
        // its SIGTERM.
        let termination = TerminationSignals(SIGTERM, SIGINT)
        let daemon: Daemon
        do {
            var socketPath = absolute(socket)
            var passed: Int32?
            switch try SocketActivation.take() {
            case .none:
                break
            case .otherProcess(let pid):
                logger.notice("LISTEN_PID names another process; binding --socket", metadata: ["LISTEN_PID": "\(pid)", "socket": "\(socketPath)"])
            case .nothingPassed(let listenFDS):
                logger.notice("LISTEN_PID names this process but LISTEN_FDS passes no socket; binding --socket", metadata: [
                    "LISTEN_FDS": "\(listenFDS ?? "unset")", "socket": "\(socketPath)"])
            case .socket(let descriptor, let path):
                if path != socketPath {
                    logger.debug("serving the socket passed by the service manager, not --socket", metadata: ["socket": "\(path)"])
                }
                socketPath = path
                passed = descriptor
            }
            daemon = try await Daemon.start(
                socketPath: socketPath, passedDescriptor: passed, dataDir: absolute(dataDir), overrides: overrides,
                busyPollMicroseconds: busyPollMicroseconds, logger: logger)
        } catch let error as StashError {
            FileHandle.standardError.write(Data("stashd: \(error.message)\n".utf8))
            notifier.status("cannot start: \(error.message)")
            throw ExitCode(1)
        }
        notifier.ready(status: await daemon.status().text)
        var services: [Task<Void, Never>] = []
        if notifier.isActive {
            services.append(Task { await daemon.reportStatus(to: notifier) })
            if let interval = notifier.watchdogInterval {
                services.append(Task { await daemon.feedWatchdog(notifier, every: interval) })
            }
        }
        if let exitWhenIdle {
            services.append(Task {
                await daemon.waitUntilIdle(for: exitWhenIdle)
                if !Task.isCancelled { termination.fire(.idle(seconds: exitWhenIdle)) }
            })
        }
        let reason = await termination.next()
        notifier.stopping()
        for service in services { service.cancel() }
        logger.notice("stopping", metadata: ["reason": "\(reason)"])
        await daemon.stop()
        logger.notice("stopped")
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
