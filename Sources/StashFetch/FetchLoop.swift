import CCurl
import Dispatch
import Logging
import StashCore

/// The fetch thread's world: the multi handle, every transfer, and the timers of transfers
/// waiting to retry. Nothing here is touched from another thread.
final class FetchLoop {
    private let inbox: FetchInbox
    private let multi: CurlMulti
    private let monitor: NetworkMonitor
    private let logger: Logger
    private var transfers: [TransferID: Transfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: Transfer] = [:]
    private var rateLimit: Int64 = 0
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    /// Transfers waiting for their file to be free (`FileWaits`).
    private var fileWaits = FileWaits()
    /// Running transfers paused until their deferred part file is open (`Transfer.receive`).
    private var opensWanted: [Transfer] = []
    private var stopping = false
    private var passes: FetchPasses?
    /// Opens and commits part files off this thread (`DiskQueues`).
    private let disk: DiskQueues

    init(inbox: FetchInbox, monitor: NetworkMonitor, syncer: FileSyncer, logger: Logger) throws {
        self.inbox = inbox
        disk = DiskQueues(inbox: inbox, syncer: syncer)
        self.monitor = monitor
        self.logger = logger
        multi = try CurlMulti()
        // Enough idle connections cached that back-to-back transfers to a few hosts reuse them.
        try multi.set(CURLMOPT_MAXCONNECTS, 64)
        let wakeup = multi.wakeup
        let log = logger
        inbox.attach {
            do { try wakeup() } catch { log.error("cannot wake the fetch thread", metadata: ["error": "\(error)"]) }
        }
    }

    func run() {
        while !stopping {
            passes?.began()
            applyCommands()
            if stopping { break }
            fireTimers()
            do {
                try multi.perform()
                for (handle, code) in multi.completions() { attemptEnded(handle: handle, code: code) }
                openWantedFiles()
                passes?.ended()
                try multi.poll(timeoutMs: nextTimeoutMs())
            } catch {
                logger.critical("fetch loop failed; stopping every transfer", metadata: ["error": "\(error)"])
                stopping = true
            }
        }
        passes?.ended()
        // Files in the disk queue's hands are finished first, so none is closed under it.
        disk.waitForAll()
        for command in inbox.take().commands { answerAtShutdown(command) }
        for transfer in Array(transfers.values) { stop(transfer) }
        for command in inbox.close() { answerAtShutdown(command) }
        byHandle.removeAll()
        for waiter in shutdownWaiters { waiter.resume() }
    }

    /// What a command gets once the loop has stopped: disk results still finish their
    /// transfers; new transfers fail; waiters are released.
    private func answerAtShutdown(_ command: FetchCommand) {
        switch command {
        case .start(_, _, let events):
            events(.failed(DownloadError(.internal, "fetch workers are shut down")))
            inbox.transferFinished()
        case .cancel(_, let stopped): stopped()
        case .shutdown(let waiter): waiter.map { shutdownWaiters.append($0) }
        case .opened, .committed: applyDiskResult(command)
        case .groupRateLimit, .observePasses: break
        }
    }

    /// Takes commands until the inbox is empty, so a command posted while others were applied
    /// is applied before the loop sleeps (only an empty inbox re-arms the wake-up).
    private func applyCommands() {
        while !stopping {
            let (commands, newLimit) = inbox.take()
            apply(commands, newLimit: newLimit)
            if commands.isEmpty { return }
        }
    }

    private func apply(_ commands: [FetchCommand], newLimit: Int64?) {
        if let newLimit {
            rateLimit = newLimit
            applyRateShares()
        }
        var opening: [Transfer] = []
        defer { open(opening) }
        for command in commands {
            switch command {
            case .start(let id, let request, let events):
                let transfer = Transfer(id: id, request: request, logger: logger, events: events)
                // At most a day: the caller's number, kept from overflowing the nanoseconds.
                if request.delayMs > 0 { transfer.firstAttemptAt = now() + UInt64(min(request.delayMs, 86_400_000)) * 1_000_000 }
                transfers[id] = transfer
                transfer.log(.debug, "transfer starting", ["url": "\(transfer.request.url.withoutURLSecrets)"])
                if let limit = request.memoryLimit {
                    // Nothing to open on the disk.
                    transfer.body = MemoryBody(limit: limit, url: request.url)
                    startAttempt(transfer, counted: true)
                } else if holdsFile(transfer.fileKey, other: transfer) {
                    fileWaits.add(transfer)
                } else if BodyPlan.ifRange(etag: request.etag, lastModified: request.lastModified) == nil, !request.resumeOnSize {
                    // It starts from byte 0 whatever the part file holds: nothing to read
                    // first, so its file opens only when needed (`PartFile.init(deferred:)`).
                    startDeferred(transfer)
                } else {
                    opening.append(transfer)
                }
            case .cancel(let id, let stopped):
                if let transfer = transfers[id], fileWaits.remove(transfer) {
                    // Never opened: nothing to wait for.
                    stop(transfer)
                    stopped()
                    continue
                }
                if let transfer = transfers[id], transfer.phase == .starting || transfer.phase == .committing || transfer.fileOpening {
                    transfer.stopRequested = true
                    transfer.cancelWaiters.append(stopped)
                    continue
                }
                if let transfer = transfers[id] { stop(transfer) }
                stopped()
            case .shutdown(let waiter):
                waiter.map { shutdownWaiters.append($0) }
                stopping = true
            case .groupRateLimit(let group, let limit):
                for transfer in transfers.values where transfer.request.rateGroup == group { transfer.request.groupRateLimit = limit }
                applyRateShares()
            case .observePasses(let observer): passes = observer
            case .opened, .committed: applyDiskResult(command)
            }
        }
    }

    /// Opens the part files of transfers started together in one go on one disk queue: a
    /// batch of a bundle's files then costs one thread wake-up, not one per file. A file that
    /// must be read and hashed before it can resume is opened on its own, so it holds up no other.
    private func open(_ starting: [Transfer]) {
        guard !starting.isEmpty else { return }
        var batch: [(TransferID, FetchRequest)] = []
        for transfer in starting {
            let rehash = !transfer.request.expectedSHA256.isEmpty
                && BodyPlan.ifRange(etag: transfer.partETag, lastModified: transfer.partLastModified) != nil
            if rehash {
                disk.open([(transfer.id, transfer.request)], rehash: true)
            } else {
                batch.append((transfer.id, transfer.request))
            }
        }
        if !batch.isEmpty { disk.open(batch, rehash: false) }
    }

    private func startDeferred(_ transfer: Transfer) {
        let request = transfer.request
        do {
            // A single file's transfer from byte 0 is most often its download's first: its folder is new.
            transfer.body = try PartFile(
                folder: request.folder, relativePath: request.relativePath, hashing: !request.expectedSHA256.isEmpty, deferred: true,
                folderLikelyNew: request.durability == .alone)
        } catch {
            finish(transfer, FetchFailure.thrown(error).finalEvent)
            return
        }
        transfer.requestOpen = { [unowned self] in opensWanted.append($0) }
        startAttempt(transfer, counted: true)
    }

    /// Opens the deferred part files whose transfers paused for it, each on its disk queue.
    private func openWantedFiles() {
        guard !opensWanted.isEmpty else { return }
        for transfer in opensWanted {
            if let file = transfer.body as? PartFile { disk.openDeferred(file, for: transfer.id) }
        }
        opensWanted.removeAll()
    }

    /// A paused transfer's deferred part file is open (or could not be): it goes on, or
    /// takes in what happened meanwhile.
    private func openedWhileRunning(_ transfer: Transfer, _ result: Result<PartFile, FetchFailure>) {
        transfer.fileOpening = false
        // A cancel that waited for the open wins over whatever else happened meanwhile.
        if transfer.stopRequested || stopping {
            transfer.endedWhileOpening = nil
            stop(transfer)
            return
        }
        if let code = transfer.endedWhileOpening, let easy = transfer.easy {
            transfer.endedWhileOpening = nil
            if case .failure(let failure) = result, transfer.abortFailure == nil { transfer.abortFailure = failure }
            attemptEnded(handle: easy.handle, code: code)
            return
        }
        if case .failure(let failure) = result {
            detach(transfer)
            finish(transfer, failure.finalEvent)
            return
        }
        do { try transfer.easy?.unpause() } catch {
            detach(transfer)
            finish(transfer, FetchFailure.thrown(error).finalEvent)
        }
    }

    /// Takes back a transfer from the disk queue: starts it, finishes it, or stops it if a
    /// cancel came in meanwhile.
    private func applyDiskResult(_ command: FetchCommand) {
        switch command {
        case .opened(let id, let result):
            guard let transfer = transfers[id] else {
                if case .success(let file) = result { file.closeFile() }
                return
            }
            if transfer.fileOpening {
                openedWhileRunning(transfer, result)
                return
            }
            switch result {
            case .success(let file):
                transfer.body = file
                if transfer.stopRequested || stopping {
                    stop(transfer)
                } else {
                    startAttempt(transfer, counted: true)
                }
            case .failure(let failure):
                finish(transfer, failure.finalEvent)
            }
        case .committed(let id, let event):
            guard let transfer = transfers[id] else { return }
            finish(transfer, event)
        default: break
        }
    }

    private func startAttempt(_ transfer: Transfer, counted: Bool) {
        if let at = transfer.firstAttemptAt {
            // The backoff an earlier transfer of the file began is not over: wait it out here,
            // its part file open (the timers start this attempt again).
            transfer.firstAttemptAt = nil
            if at > now() {
                transfer.phase = .waitingToRetry(until: at)
                return
            }
        }
        if counted {
            // A new attempt follows the redirects from the start, as the server may now
            // send it elsewhere.
            transfer.attempts += 1
            transfer.currentURL = transfer.request.url
            transfer.redirects = 0
            transfer.sendsBody = true
        }
        do {
            if limitsInForce {
                let running = transfers.values.filter { $0.easy != nil }
                if let share = Self.shares(of: running + [transfer], global: rateLimit).last {
                    try transfer.setRateShare(share, now: now())
                }
            }
            let easy = try transfer.prepareAttempt()
            try multi.add(easy)
            transfer.easy = easy
            byHandle[easy.handle] = transfer
            transfer.phase = .running
            applyRateShares()
        } catch {
            transfer.easy = nil
            finish(transfer, FetchFailure.thrown(error).finalEvent)
        }
    }

    /// Takes the attempt's easy handle out of the multi handle.
    private func detach(_ transfer: Transfer) {
        guard let easy = transfer.easy else { return }
        do { try multi.remove(easy) } catch { transfer.log(.error, "cannot remove easy handle", ["error": "\(error)"]) }
        byHandle[easy.handle] = nil
        transfer.easy = nil
        applyRateShares()
    }

    private func attemptEnded(handle: UnsafeMutableRawPointer, code: CURLcode) {
        guard let transfer = byHandle[handle], let easy = transfer.easy else { return }
        if transfer.fileOpening {
            // The disk queue has the file: the end is taken in once it hands it back.
            transfer.endedWhileOpening = code
            return
        }
        let outcome = transfer.outcome(of: easy, code: code)
        detach(transfer)
        switch outcome {
        case .success:
            complete(transfer)
        case .redirect(let location, let status):
            follow(transfer, to: location, status: status)
        case .failure(let failure):
            failed(transfer, failure)
        }
    }

    /// Asks `location` next within the same attempt, or fails the transfer when RedirectRule
    /// refuses it; a refusal is final, as the server will answer the same again.
    private func follow(_ transfer: Transfer, to location: String, status: Int) {
        if let refusal = RedirectRule.refusal(from: transfer.currentURL, to: location) {
            finish(transfer, .failed(DownloadError(.validation, refusal, httpStatus: status)))
            return
        }
        guard transfer.redirects < RedirectRule.maxRedirects else {
            finish(transfer, .failed(DownloadError(
                .http, "more than \(RedirectRule.maxRedirects) redirects, the last from \(transfer.currentURL) to \(location) (\(transfer.request.url))",
                httpStatus: status)))
            return
        }
        transfer.redirects += 1
        transfer.currentURL = location
        if !RedirectRule.keepsBody(status: status) { transfer.sendsBody = false }
        transfer.log(.debug, "following redirect", ["status": "\(status)"])
        startAttempt(transfer, counted: false)
    }

    private func failed(_ transfer: Transfer, _ failure: FetchFailure) {
        var metadata: Logger.Metadata = ["attempt": "\(transfer.attempts)", "error": "\(failure.error.message.withoutURLSecrets)"]
        let decision = RetryDecision.decide(after: failure, attempts: transfer.attempts, policy: transfer.request.retry) {
            monitor.isOnline(host: transfer.host)
        }
        switch decision {
        case .giveUp(let event):
            transfer.log(.info, "transfer failed", metadata)
            finish(transfer, event)
        case .waitForNetwork:
            // Offline is not the server's fault: this attempt does not count.
            transfer.attempts -= 1
            transfer.log(.info, "network down; waiting", metadata)
            transfer.phase = .waitingForNetwork(nextCheck: now() + 1_000_000_000)
            transfer.emit(.waitingForNetwork)
        case .retry(let delay) where transfer.request.retriesOutside && !transfer.freshConnection:
            // A failure on a pooled connection is retried here, on a new connection
            // (`freshConnection`): the host did answer, so there is no host to wait out.
            metadata["delayMs"] = "\(delay)"
            transfer.log(.info, "attempt failed; the caller retries", metadata)
            finish(transfer, .retryLater(attempt: transfer.attempts, delayMs: delay, error: failure.error))
        case .retry(let delay):
            metadata["delayMs"] = "\(delay)"
            transfer.log(.info, "attempt failed; retrying", metadata)
            transfer.phase = .waitingToRetry(until: now() + UInt64(max(0, delay)) * 1_000_000)
            transfer.emit(.retrying(attempt: transfer.attempts, delayMs: delay, error: failure.error))
        }
    }

    private func complete(_ transfer: Transfer) {
        if let memory = transfer.body as? MemoryBody {
            finish(transfer, .received(FetchedBody(
                bytes: memory.bytes, effectiveURL: transfer.effectiveURL ?? transfer.request.url,
                contentType: transfer.response.contentType)))
            return
        }
        guard let file = transfer.body as? PartFile else { return }
        if transfer.request.range == nil, let total = transfer.totalBytes, file.size != total {
            // A short 206 (`bytes 50000-50009/100000`) ends cleanly; the next attempt asks for
            // the rest with Range rather than calling the file complete.
            failed(transfer, FetchFailure(
                error: DownloadError(.network, "\(transfer.request.url) sent the file up to byte \(file.size) of \(total); asking for the rest"),
                retryable: true, connectionClass: false))
            return
        }
        if let range = transfer.request.range, file.size != range.length {
            failed(transfer, FetchFailure(
                error: DownloadError(.network, "\(transfer.request.url) sent \(file.size) of the \(range.length) bytes of the range at offset \(range.offset)"),
                retryable: true, connectionClass: false))
            return
        }
        let digest = file.sha256Hex
        let bytes = file.size
        if let refusal = transfer.refusalAtEnd(of: file, digest: digest) {
            file.remove()
            finish(transfer, .failed(refusal))
            return
        }
        transfer.phase = .committing
        transfer.body = nil
        disk.commit(file, of: transfer, bytes: bytes, digest: digest)
    }

    private func stop(_ transfer: Transfer) {
        detach(transfer)
        transfer.log(.debug, "transfer stopped", ["bytes": "\(transfer.downloadedBytes)"])
        finish(transfer, .stopped)
    }

    /// Delivers the final event exactly once and forgets the transfer.
    private func finish(_ transfer: Transfer, _ event: FetchEvent) {
        guard transfers.removeValue(forKey: transfer.id) != nil else { return }
        transfer.body?.closeFile()
        transfer.emit(event)
        inbox.transferFinished()
        for stopped in transfer.cancelWaiters { stopped() }
        transfer.cancelWaiters.removeAll()
        releaseFile(of: transfer)
    }

    /// Whether a transfer other than `other` that is not itself waiting has this file.
    private func holdsFile(_ key: String, other: Transfer) -> Bool {
        transfers.values.contains { $0 !== other && $0.request.memoryLimit == nil && $0.fileKey == key && !fileWaits.contains($0) }
    }

    /// The file's holder is done: the next transfer waiting for it is opened.
    private func releaseFile(of transfer: Transfer) {
        guard !stopping, transfer.request.memoryLimit == nil else { return }
        let key = transfer.fileKey
        guard fileWaits.anyWaits(for: key), !holdsFile(key, other: transfer), let next = fileWaits.next(for: key) else { return }
        open([next])
    }

    private func fireTimers() {
        let current = now()
        for transfer in Array(transfers.values) {
            if let resumeAt = transfer.resumeAt, resumeAt <= current, let easy = transfer.easy {
                transfer.resumeAt = nil
                do { try easy.unpause() } catch { transfer.log(.error, "cannot unpause", ["error": "\(error)"]) }
            }
            switch transfer.phase {
            case .waitingToRetry(let until) where until <= current:
                startAttempt(transfer, counted: true)
            case .waitingForNetwork(let nextCheck) where nextCheck <= current:
                if monitor.isOnline(host: transfer.host) {
                    startAttempt(transfer, counted: true)
                } else {
                    transfer.log(.debug, "network still down; checking again in 1 s")
                    transfer.phase = .waitingForNetwork(nextCheck: current + 1_000_000_000)
                }
            default: break
            }
        }
    }

    /// Wakes at the next retry or network check; at most a second so nothing waits on a lost wakeup.
    private func nextTimeoutMs() -> Int {
        let current = now()
        var earliest = current + 1_000_000_000
        for transfer in transfers.values {
            if let resumeAt = transfer.resumeAt { earliest = min(earliest, resumeAt) }
            switch transfer.phase {
            case .waitingToRetry(let at), .waitingForNetwork(let at): earliest = min(earliest, at)
            case .starting, .running, .committing: break
            }
        }
        return earliest <= current ? 0 : Int((earliest - current + 999_999) / 1_000_000)
    }

    /// Whether any limit is set or any transfer still runs under one: without, every share is
    /// 0 (unlimited) and there is nothing to split.
    private var limitsInForce: Bool {
        rateLimit > 0 || transfers.values.contains { $0.request.groupRateLimit > 0 || $0.limiter.limit > 0 }
    }

    /// Each of `running`'s share of the limits (0 = unlimited), in its order: see `RateShares`.
    private static func shares(of running: [Transfer], global: Int64) -> [Int64] {
        RateShares.split(global: global, groups: running.map { ($0.request.rateGroup, $0.request.groupRateLimit) })
    }

    /// Re-splits the limits whenever the running transfers or the global limit change; a
    /// transfer whose share is the same keeps its pacing window.
    private func applyRateShares() {
        guard limitsInForce else { return }
        let running = transfers.values.filter { $0.easy != nil }
        let current = now()
        for (transfer, share) in zip(running, Self.shares(of: running, global: rateLimit)) where transfer.limiter.limit != share {
            do {
                try transfer.setRateShare(share, now: current)
            } catch {
                transfer.log(.error, "cannot apply rate limit", ["error": "\(error)"])
            }
        }
    }

    private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
