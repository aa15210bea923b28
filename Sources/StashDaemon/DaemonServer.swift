import Foundation
import Logging
import NIOCore
import NIOPosix
import StashCore
import StashWire
import Synchronization

/// The IPC server: listens on the Unix socket, frames and decodes requests, enforces the
/// connection rules (peer uid, Hello first, frame limits) and hands each request to a
/// `RequestHandler`.
package final class DaemonServer: Sendable {
    package let socketPath: String
    private let handler: any RequestHandler
    private let logger: Logger
    private let maxFrameLength: Int
    private let spinner: IdleSpinner?

    /// A socket a service manager bound and passed (`SocketActivation`): served as it is, and
    /// left in place at a stop, since the manager listens on it again for the next start.
    private let passedDescriptor: Int32?

    private struct State {
        var running: Running?
        var connections: [ObjectIdentifier: Channel] = [:]
        /// When the last connection closed (or the server started): `--exit-when-idle` counts from it.
        var quietSince = ContinuousClock.now
    }

    private let state = Mutex(State())

    private struct Running {
        var group: MultiThreadedEventLoopGroup
        var listener: Channel
        var socketLock: LockFile
    }

    /// - Parameters:
    ///   - socketPath: where to listen; its directory is created 0700 when missing.
    ///   - passedDescriptor: a listening socket bound to `socketPath` by a service manager,
    ///     served instead of binding one.
    ///   - handler: answers every request.
    ///   - maxFrameLength: larger frames are refused before anything is allocated for them.
    ///   - busyPollMicroseconds: how long a CPU is kept awake after a request (`IdleSpinner`); 0 never.
    package init(
        socketPath: String, passedDescriptor: Int32? = nil, handler: any RequestHandler, logger: Logger,
        maxFrameLength: Int = WireCodec.defaultMaxFrameLength, busyPollMicroseconds: Int = 0
    ) {
        self.socketPath = socketPath
        self.passedDescriptor = passedDescriptor
        self.handler = handler
        self.logger = logger
        self.maxFrameLength = maxFrameLength
        self.spinner = IdleSpinner(windowMicroseconds: busyPollMicroseconds, logger: logger)
    }

    deinit {
        spinner?.stop()
    }

    /// Binds the socket and starts accepting connections. Throws FAILED_PRECONDITION when
    /// another daemon holds the socket, or when the socket cannot be set up (the message
    /// says which step failed and why).
    package func start() async throws {
        let socketLock: LockFile
        do {
            try SocketDirectory.prepare(forSocket: socketPath, logger: logger)
            socketLock = try LockFile.acquire(path: socketPath + ".lock", what: socketPath)
            // A passed socket is live, not stale: its manager bound it a moment ago.
            if passedDescriptor == nil { try removeStaleSocket() }
        } catch let error as StashError {
            throw error
        } catch {
            throw StashError(.failedPrecondition, "cannot listen on \(socketPath): \(error)")
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        do {
            let listener = try await bind(group: group)
            state.withLock { $0.running = Running(group: group, listener: listener, socketLock: socketLock) }
            logger.info("listening", metadata: [
                "socket": "\(socketPath)", "threads": "\(System.coreCount)", "passed_by_service_manager": "\(passedDescriptor != nil)"])
        } catch {
            try? await group.shutdownGracefully()
            if passedDescriptor == nil { removeSocketFile() }
            socketLock.release()
            throw StashError(.failedPrecondition, "cannot listen on \(socketPath): \(error)")
        }
    }

    /// Stops listening, closes every connection (cancelling their subscriptions), removes the
    /// socket file and releases the lock. Calling it again does nothing.
    package func stop() async {
        let (stopping, open) = state.withLock { state in
            defer { state.running = nil }
            return (state.running, Array(state.connections.values))
        }
        guard let stopping else { return }

        try? await stopping.listener.close()
        for channel in open {
            try? await channel.close()
        }
        if passedDescriptor == nil { removeSocketFile() }
        spinner?.stop()
        try? await stopping.group.shutdownGracefully()
        stopping.socketLock.release()
        logger.info("stopped", metadata: ["socket": "\(socketPath)"])
    }

    /// How long no client has been connected; zero while one is.
    package var quietDuration: Duration {
        state.withLock { $0.connections.isEmpty ? ContinuousClock.now - $0.quietSince : .zero }
    }

    // MARK: - Private

    /// The lock is ours, so no daemon serves this socket: whatever is at the path is stale.
    private func removeStaleSocket() throws {
        guard try SystemCallError.status(socketPath, followingSymlink: false) != nil else { return }
        try SystemCallError.removeFile(socketPath)
        logger.notice("removed stale socket file", metadata: ["socket": "\(socketPath)"])
    }

    /// At a stop: a socket file left behind is reclaimed by the next start (the lock says no
    /// daemon serves it), so a failure here is only worth a line in the log.
    private func removeSocketFile() {
        do {
            try SystemCallError.removeFile(socketPath)
        } catch {
            logger.warning("cannot remove the socket file", metadata: ["socket": "\(socketPath)", "error": "\(error)"])
        }
    }

    private func bind(group: MultiThreadedEventLoopGroup) async throws -> Channel {
        let handler = self.handler
        let logger = self.logger
        let maxFrameLength = self.maxFrameLength
        let spinner = self.spinner
        let ownerUID = UInt32(geteuid())
        let descriptor = try passedDescriptor ?? ListeningSocket.bind(path: socketPath)
        // SwiftNIO listens on the socket it is handed with its default backlog, 128 connections
        // not yet accepted.
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DescriptorReserve(listeningSocket: descriptor, clock: handler.clock, logger: logger))
                }
            }
            .childChannelInitializer { [weak self] channel in
                self?.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ByteToMessageHandler(FrameDecoder(maxFrameLength: maxFrameLength)))
                    try operations.addHandler(ConnectionHandler(handler: handler, ownerUID: ownerUID, spinner: spinner, logger: logger))
                }
            }
        // From here on the channel owns the descriptor and closes it.
        return try await bootstrap.withBoundSocket(descriptor).get()
    }

    private func track(_ channel: Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { $0.connections[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { state in
                state.connections[key] = nil
                if state.connections.isEmpty { state.quietSince = .now }
            }
        }
    }
}
