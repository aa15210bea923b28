import Foundation
import StashCore
import StashStore
import Synchronization

/// The engine's journal: registry writes and the events that announce them, in the order the
/// engine made them. A write is committed before its event is published, and events are
/// published in submission order, so no subscriber ever hears of a state the registry could
/// lose or sees two changes of a download the wrong way round. Writes that pile up while a
/// transaction runs go into the next transaction together (group commit).
final class CommitQueue: Sendable {
    enum Change {
        /// A new download: its record and all its files.
        case add(Download)
        /// The record changed (state, bytes, reason); its file list did not.
        case save(Download)
        /// One file learned its size or validators.
        case saveFile(id: String, index: Int, file: DownloadFile)
        /// The same, written with the download's next record save (`.save`: its progress
        /// saves, its completion) instead of a transaction of its own. For what a file's
        /// response tells: a commit per file start was an fsync per file, and a fact lost in
        /// a crash costs only a restart of that file from zero (no validators) or a size
        /// learned again from the server.
        case noteFile(id: String, index: Int, file: DownloadFile)
        case delete(String)
        /// A licence release to keep in the outbox (or its attempt count), and one acknowledged.
        case release(LicenseRelease)
        case releaseDone(String)
    }

    private struct Item {
        var change: Change?
        var event: DownloadEvent.Kind?
        var ticket: CommitTicket?
    }

    private let registry: Registry
    private let bus: EventBus
    /// Shows each record once it is committed, before its event goes out.
    private let cache: RecordCache?
    private struct State {
        var pending = PendingBatch<Item>()
        /// `.noteFile` facts not yet written, by download and file index.
        var noted: [String: [Int: DownloadFile]] = [:]
    }

    private let state = Mutex(State())
    /// The record last written of each download queued or running whose row this queue wrote
    /// whole in this run: the next change that moves only its state or progress writes those
    /// columns alone. Only `drain` uses it, one batch at a time. Not kept for records loaded
    /// at start, which a load may have repaired in memory only: their first write is whole.
    private let written = Mutex<[String: Download]>([:])

    init(registry: Registry, bus: EventBus, cache: RecordCache? = nil) {
        self.registry = registry
        self.bus = bus
        self.cache = cache
    }

    /// Queues a change and its announcement. Synchronous, so the order of calls is the order on
    /// disk; await the ticket to know the change is durable.
    /// Returns once every change submitted so far is durable.
    func flushed() async throws {
        try await submit(nil, event: nil).wait()
    }

    @discardableResult
    func submit(_ change: Change?, event: DownloadEvent.Kind?) -> CommitTicket {
        let ticket = CommitTicket()
        enum Next { case noted, publishNow, queued(startDrain: Bool) }
        let next = state.withLock { state -> Next in
            switch change {
            case .noteFile(let id, let index, let file)?:
                state.noted[id, default: [:]][index] = file
                return .noted
            case .saveFile(let id, let index, _)?:
                // Newer than the noted fact, which must not overwrite it later.
                state.noted[id]?[index] = nil
            case .add(let download)?:
                // A new file list: noted indexes may name other files.
                state.noted[download.id] = nil
            case .delete(let id)?:
                state.noted[id] = nil
            default:
                break
            }
            // Nothing in flight to overtake: announce at once.
            if change == nil && !state.pending.draining { return .publishNow }
            return .queued(startDrain: state.pending.add(Item(change: change, event: event, ticket: ticket)))
        }
        switch next {
        case .noted:
            guard let event else {
                ticket.resolve(nil)
                return ticket
            }
            // Nothing to commit now; its announcement keeps its place behind earlier writes.
            return submit(nil, event: event)
        case .publishNow:
            if let event { bus.publish(event) }
            ticket.resolve(nil)
        case .queued(let startDrain):
            if startDrain { drainNext() }
        }
        return ticket
    }

    /// Writes the next batch; once it is durable (on the registry's commit thread) shows and
    /// announces it, and goes on with the batch queued meanwhile, until none is. The first
    /// batch is handed over by the submitter; no task hops between the commits.
    private func drainNext() {
        while let (batch, noted) = takeBatch() {
            let written = registryBatch(batch, noted: noted)
            // Nothing to write (announcements, noted facts): done here, in a loop rather than
            // a callback that calls this again.
            if written.isEmpty {
                finish(batch, failure: nil)
                continue
            }
            registry.commit(written) { [self] failure in
                if failure == nil { remember(written) }
                finish(batch, failure: failure)
                drainNext()
            }
            return
        }
    }

    /// Each change shows in the cache and each event is published before any ticket of the
    /// batch resolves, so whoever waits on one finds the registry's state and its event out.
    private func finish(_ batch: [Item], failure: Error?) {
        if failure == nil {
            for item in batch { show(item.change) }
            bus.publish(batch.compactMap(\.event))
        }
        for item in batch { item.ticket?.resolve(failure) }
    }

    private func show(_ change: Change?) {
        guard let cache else { return }
        switch change {
        case .add(let download)?, .save(let download)?:
            cache.commit(download.id, download)
        case .delete(let id)?:
            cache.commit(id, nil)
        default:
            break
        }
    }

    /// Everything queued so far, with the noted file facts of each download the batch saves;
    /// or nil (and the queue marked idle) when nothing is queued.
    private func takeBatch() -> (items: [Item], noted: [String: [Int: DownloadFile]])? {
        state.withLock { state in
            let batch = state.pending.take()
            if batch.isEmpty { return nil }
            // Taken now, they are newer than every change of their file in the batch: a later
            // `.saveFile` or `.add` clears them.
            var flushed: [String: [Int: DownloadFile]] = [:]
            if !state.noted.isEmpty {
                for item in batch {
                    guard case .save(let download)? = item.change, let files = state.noted.removeValue(forKey: download.id) else { continue }
                    flushed[download.id] = files
                }
            }
            return (batch, flushed)
        }
    }

    /// What a batch leaves of one download once later changes supersede earlier ones.
    private struct Net {
        var download: Download?
        var withFiles = false
        var files: [Int: DownloadFile] = [:]
        var deleted = false

        /// A file's newest facts: into the added file list when the batch writes one, else
        /// as a row of its own; nothing for a download the batch deletes.
        mutating func setFile(_ index: Int, _ file: DownloadFile) {
            if withFiles, download != nil {
                download?.files[index] = file
            } else if !deleted {
                files[index] = file
            }
        }
    }

    /// What the items leave on disk: each download's last word, and its files'.
    private func registryBatch(_ batch: [Item], noted: [String: [Int: DownloadFile]]) -> RegistryBatch {
        var net: [String: Net] = [:]
        var order: [String] = []
        var releases: [LicenseRelease] = []
        var releasesDone: [String] = []
        func touch(_ id: String, _ body: (inout Net) -> Void) {
            if net[id] == nil { order.append(id) }
            body(&net[id, default: Net()])
        }
        for item in batch {
            switch item.change {
            case .add(let download)?:
                touch(download.id) { $0 = Net(download: download, withFiles: true) }
            case .save(let download)?:
                touch(download.id) { entry in
                    // A record saved after its add in the same batch still needs its files written.
                    if entry.withFiles, let added = entry.download {
                        var merged = download
                        merged.files = added.files
                        for (index, file) in entry.files { merged.files[index] = file }
                        entry.files = [:]
                        entry.download = merged
                    } else {
                        entry.download = download
                    }
                    entry.deleted = false
                }
            case .saveFile(let id, let index, let file)?:
                touch(id) { $0.setFile(index, file) }
            case .delete(let id)?:
                touch(id) { $0 = Net(deleted: true) }
            case .noteFile?:
                continue
            case .release(let release)?:
                releases.append(release)
            case .releaseDone(let id)?:
                releases.removeAll { $0.id == id }
                releasesDone.append(id)
            case nil:
                continue
            }
        }
        for (id, files) in noted {
            touch(id) { entry in
                for (index, file) in files { entry.setFile(index, file) }
            }
        }
        var registryBatch = RegistryBatch(releases: releases, releasesDone: releasesDone)
        for id in order {
            guard let entry = net[id] else { continue }
            if entry.deleted {
                registryBatch.deletes.append(id)
                continue
            }
            if let download = entry.download {
                if entry.withFiles {
                    registryBatch.saves.append(download)
                } else if let last = written.withLock({ $0[id] }), download.differsOnlyInProgress(from: last) {
                    registryBatch.progressUpdates.append(download)
                } else {
                    registryBatch.updates.append(download)
                }
            }
            for (index, file) in entry.files.sorted(by: { $0.key < $1.key }) {
                registryBatch.fileUpdates.append(FileUpdate(downloadID: id, index: index, file: file))
            }
        }
        return registryBatch
    }

    /// Keeps the records a committed batch wrote, for the next change's choice of columns.
    private func remember(_ batch: RegistryBatch) {
        written.withLock { written in
            for id in batch.deletes { written[id] = nil }
            for downloads in [batch.saves, batch.updates, batch.progressUpdates] {
                for download in downloads { written[download.id] = download.state == .queued || download.state.isActive ? download : nil }
            }
        }
    }
}

/// The promise of one submitted change: resolved once its transaction has committed (or failed).
final class CommitTicket: Sendable {
    private struct State {
        /// Set once resolved: the failure, or nil for success.
        var outcome: Result<Void, Error>?
        var waiters: [CheckedContinuation<Void, Error>] = []
    }

    private let state = Mutex(State())

    func resolve(_ error: Error?) {
        let outcome: Result<Void, Error> = error.map { .failure($0) } ?? .success(())
        let waiting = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiting { waiter.resume(with: outcome) }
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let outcome = state.withLock { state in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
