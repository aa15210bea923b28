import Foundation
import Logging
import StashCore
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

    private init(engine: Engine, server: DaemonServer, fetch: FetchWorkers, dataDirLock: LockFile, logger: Logger) {
        self.engine = engine
        self.server = server
        self.fetch = fetch
        self.dataDirLock = dataDirLock
        self.logger = logger
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
        try await engine.start()
        let server = DaemonServer(
            socketPath: socketPath, passedDescriptor: passedDescriptor, handler: RequestDispatcher(engine: engine, logger: logger),
            logger: logger, busyPollMicroseconds: busyPollMicroseconds)
        do {
            try await server.start()
        } catch {
            await engine.shutdown()
            throw error
        }
        logger.notice("stashd ready", metadata: ["socket": "\(socketPath)", "data_dir": "\(dataDir)", "max_parallel": "\(config.maxParallel)"])
        return Daemon(engine: engine, server: server, fetch: fetch, dataDirLock: lock, logger: logger)
    }

    /// Stops listening, stops transfers, persists, and releases the data dir.
    package func stop() async {
        await server.stop()
        await engine.shutdown()
        dataDirLock.release()
    }
}
