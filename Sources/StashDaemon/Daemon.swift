import Foundation
import Logging
import StashCore
import StashDesktop
import StashEngine
import StashFetch
import StashKeys
import StashStore

/// The running daemon: its data-dir lock, registry, fetch workers, engine and IPC server,
/// started and stopped in the right order.
package final class Daemon: Sendable {
    let engine: Engine
    let server: DaemonServer
    let fetch: FetchWorkers
    let dataDirLock: LockFile
    let logger: Logger
    let desktop: DesktopWatch
    let sleepInhibitor: SleepInhibitor
    let notifier: Notifier
    let notices: Task<Void, Never>
    /// Hands the desktop's changes to the engine, in order.
    let desktopFeed: Task<Void, Never>

    private init(
        engine: Engine, server: DaemonServer, fetch: FetchWorkers, dataDirLock: LockFile, logger: Logger, desktop: DesktopWatch,
        sleepInhibitor: SleepInhibitor, desktopFeed: Task<Void, Never>, notifier: Notifier, notices: Task<Void, Never>
    ) {
        self.engine = engine
        self.server = server
        self.fetch = fetch
        self.dataDirLock = dataDirLock
        self.logger = logger
        self.desktop = desktop
        self.sleepInhibitor = sleepInhibitor
        self.desktopFeed = desktopFeed
        self.notifier = notifier
        self.notices = notices
    }

    /// Locks the data dir (one daemon per data dir), opens the registry, reconciles it with
    /// the disk, resumes queued work, then listens. `overrides` (config keys and values, from flags)
    /// replace the stored settings for this run; `busyPollMicroseconds` is how long a CPU is kept
    /// awake after each request (`IdleSpinner`, 0: never). `passedDescriptor` is a socket
    /// bound to `socketPath` by a service manager (`SocketActivation`), served instead of one
    /// stashd binds.
    package static func start(
        socketPath: String, passedDescriptor: Int32? = nil, dataDir: String, overrides: [(key: String, value: String)] = [],
        busyPollMicroseconds: Int = 0, logger: Logger
    ) async throws -> Daemon {
        try DataDirectory.prepare(dataDir, logger: logger)
        let lock: LockFile
        do {
            lock = try LockFile.acquire(path: dataDir + "/stashd.lock", what: "data dir \(dataDir)")
        } catch let error as SystemCallError {
            throw StashError(.failedPrecondition, "cannot lock data dir \(dataDir): \(error)")
        }
        let registry = try Registry(path: dataDir + "/stash.sqlite", logger: logger)
        var config = try registry.loadConfig() ?? DaemonConfig()
        for (key, value) in overrides { try config.set(key, to: value) }
        let keys: KeyStore
        do {
            keys = try KeyStore(directory: dataDir + "/keys")
        } catch {
            throw StashError(.failedPrecondition, "cannot open the key store in \(dataDir)/keys: \(error)")
        }
        let fetch = FetchWorkers(logger: logger)
        let engine = Engine(dataDir: dataDir, socketPath: socketPath, registry: registry, fetch: fetch, keys: keys, config: config, logger: logger)
        // Read before the start, so a download that may not run now never starts at all.
        let desktop = await DesktopWatch.start(environment: ProcessInfo.processInfo.environment, logger: logger)
        await engine.desktopChanged(desktop.conditions)
        // A logind sleep lock while downloads run.
        let sleepInhibitor = desktop.sleepInhibitor()
        sleepInhibitor.mode(config.inhibitSleep)
        engine.activity.observe { sleepInhibitor.running($0) }
        // Subscribed before the start, so a download completing at once is told too.
        let notifier = Notifier(environment: ProcessInfo.processInfo.environment, logger: logger)
        let notices = await DesktopNotices.start(engine: engine, notifier: notifier)
        try await engine.start()
        let desktopFeed = Task {
            for await conditions in desktop.updates { await engine.desktopChanged(conditions) }
        }
        let server = DaemonServer(
            socketPath: socketPath, passedDescriptor: passedDescriptor,
            handler: RequestDispatcher(engine: engine, logger: logger, desktop: desktop, sleepInhibitor: sleepInhibitor, notifier: notifier),
            logger: logger, busyPollMicroseconds: busyPollMicroseconds)
        do {
            try await server.start()
        } catch {
            notices.cancel()
            notifier.close()
            sleepInhibitor.close()
            desktop.close()
            await engine.shutdown()
            throw error
        }
        logger.notice("stashd ready", metadata: ["socket": "\(socketPath)", "data_dir": "\(dataDir)", "max_parallel": "\(config.maxParallel)"])
        return Daemon(
            engine: engine, server: server, fetch: fetch, dataDirLock: lock, logger: logger, desktop: desktop, sleepInhibitor: sleepInhibitor,
            desktopFeed: desktopFeed, notifier: notifier, notices: notices)
    }

    /// Stops listening, stops transfers, persists, and releases the data dir.
    package func stop() async {
        await server.stop()
        notices.cancel()
        notifier.close()
        sleepInhibitor.close()
        desktop.close()
        desktopFeed.cancel()
        await engine.shutdown()
        dataDirLock.release()
    }
}
