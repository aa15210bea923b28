import CCurl
import Foundation
import Logging
import StashCore

/// Runs every transfer on one dedicated thread driving a libcurl multi handle, so no Swift
/// concurrency thread or event loop ever blocks on the network or the disk.
package final class FetchWorkers: Sendable {
    private let inbox = FetchInbox()
    private let syncer = FileSyncer()
    private let logger: Logger

    /// libcurl must be initialised once per process before any handle exists.
    private static let globalInit: CURLcode = ccurl_global_init_all()

    package init(logger: Logger, networkMonitor: NetworkMonitor = .system) {
        self.logger = logger
        let initCode = Self.globalInit
        let inbox = self.inbox
        do {
            try CurlError.check(initCode, "curl_global_init")
            // Handed to its thread, which alone touches it from then on: the loop's state is
            // the thread's, and everything else reaches it through the inbox.
            nonisolated(unsafe) let loop = try FetchLoop(inbox: inbox, monitor: networkMonitor, syncer: syncer, logger: logger)
            NamedThread.start("stash-fetch") { loop.run() }
        } catch {
            // Without libcurl nothing can be fetched; every start() then fails with this reason.
            logger.critical("fetch workers unavailable", metadata: ["error": "\(error)"])
            _ = inbox.close()
        }
    }

    deinit {
        _ = inbox.post(.shutdown(nil))
    }

    /// Starts a transfer; events arrive on the fetch thread, in order, exactly one final event.
    @discardableResult
    package func start(_ request: FetchRequest, events: @escaping @Sendable (FetchEvent) -> Void) -> TransferID {
        let id = inbox.makeID()
        if !inbox.post(.start(id, request, events)) {
            inbox.transferFinished()
            events(.failed(DownloadError(.internal, "fetch workers are shut down or libcurl failed to initialise")))
        }
        return id
    }

    /// Fetches a small resource into memory (`request.memoryLimit` must be set), with the same
    /// redirects, retries and network waits as files. Throws the final `DownloadError`,
    /// `FetchRetryLater` for a request with `retriesOutside` whose attempt failed and may be
    /// tried again, or `CancellationError` when the task is cancelled (the transfer is stopped).
    ///
    /// - Parameter waitingForNetwork: called (on the fetch thread) each time the transfer
    ///   starts to wait for the network, so the caller can say so.
    package func fetchBody(_ request: FetchRequest, waitingForNetwork: (@Sendable () -> Void)? = nil) async throws -> FetchedBody {
        guard request.memoryLimit != nil else {
            throw DownloadError(.internal, "a fetch into memory of \(request.url.withoutURLSecrets) was asked without a memory limit")
        }
        let outcome = FetchOutcome()
        let id: TransferID = start(request) { event in
            if event == .waitingForNetwork { waitingForNetwork?() }
            guard event.isFinal else { return }
            outcome.finish(event)
        }
        let event = await withTaskCancellationHandler {
            await outcome.wait()
        } onCancel: {
            self.cancel(id) {}
        }
        switch event {
        case .received(let body): return body
        case .failed(let error), .noSpace(let error): throw error
        case .retryLater(let attempt, let delayMs, let error): throw FetchRetryLater(attempt: attempt, delayMs: delayMs, error: error)
        default: throw CancellationError()
        }
    }

    /// Stops a transfer; returns once it is torn down and its file closed, after its final
    /// event was delivered: `.stopped`, or `.completed` for a transfer whose body had already
    /// arrived and was being committed to disk. No-op for an unknown or finished id.
    package func cancel(_ id: TransferID) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            cancel(id) { waiter.resume() }
        }
    }

    /// Stops a transfer without waiting: the stop is queued before this returns, so it takes
    /// effect before any transfer started afterwards (a resumed download reopening the same
    /// part file). `stopped` runs once the transfer is torn down, as for `cancel(_:) async`.
    package func cancel(_ id: TransferID, then stopped: @escaping @Sendable () -> Void) {
        if !inbox.post(.cancel(id, stopped)) { stopped() }
    }

    /// Global rate limit over all transfers in bytes/s (0 = unlimited), split evenly among
    /// running transfers and re-split when their number changes.
    package func setRateLimit(_ bytesPerSecond: Int64) {
        inbox.setRateLimit(bytesPerSecond)
    }

    /// The limit (bytes/s, 0 = none) the running transfers of rate group `group` share from
    /// now on, within the global one; posted in order with starts, so none started before is missed.
    package func setGroupRateLimit(_ group: String, _ bytesPerSecond: Int64) {
        _ = inbox.post(.groupRateLimit(group, max(0, bytesPerSecond)))
    }

    /// Has `passes` told, on the fetch thread, when each pass of its loop begins and when it
    /// ends (before it waits for the network), from the next pass on: the events of a pass
    /// can then be handed on together.
    package func observePasses(_ passes: FetchPasses) {
        _ = inbox.post(.observePasses(passes))
    }

    /// Makes the renames in these folders of the asset folder `folder` durable, and the
    /// entries of the folders holding them up to the one holding `folder`: what a caller of
    /// `FileDurability.grouped` transfers does once the last of its files landed. One `fsync`
    /// per folder, shared with the files being committed there meanwhile, on the sync
    /// threads; never blocks the calling thread.
    package func syncFolders(_ folders: [String], in folder: String) async throws {
        var all = Set<String>()
        for path in folders {
            if path.hasPrefix(folder + "/") {
                all.formUnion(FileSyncer.enclosingFolders(path.dropFirst(folder.count + 1), in: folder))
            } else {
                all.insert(path)
                all.formUnion(FileSyncer.enclosingFolders("", in: folder))
            }
        }
        try await syncer.sync(folders: all.sorted())
    }

    /// Transfers started and not yet finished (running, or waiting to retry or for the network).
    package var activeTransfers: Int { inbox.unfinishedCount }

    /// Stops every transfer (each gets `.stopped`) and returns once the fetch thread has ended.
    package func shutdown() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            if !inbox.post(.shutdown(waiter)) { waiter.resume() }
        }
    }
}
