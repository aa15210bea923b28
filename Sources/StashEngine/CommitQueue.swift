import Foundation
import StashCore
import StashStore

/// The engine's journal: registry writes and the events that announce them, in the order the
/// engine made them. A write is committed before its event is published, and events are
/// published in submission order, so no subscriber ever hears of a state the registry could
/// lose or sees two changes of a download the wrong way round. Writes that pile up while a
/// transaction runs go into the next transaction together (group commit).
final class CommitQueue: @unchecked Sendable {
    enum Change {
        /// A new download: its record and all its files.
        case add(Download)
        /// The record changed (state, bytes, reason); its file list did not.
        case save(Download)
        /// One file learned its size or validators.
        case saveFile(id: String, index: Int, file: DownloadFile)
        /// The same, written with the download's next record save (`.save`) instead of a
        /// transaction of its own. For the small files of a bundle or package: a commit per
        /// file start was an fsync per file, and a fact lost in a crash costs only a restart
        /// of that file from zero (no validators) or a size learned again from the server.
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
    private let lock = NSLock()
    private var pending: [Item] = []
    private var running = false
    /// `.noteFile` facts not yet written, by download and file index.
    private var noted: [String: [Int: DownloadFile]] = [:]

    init(registry: Registry, bus: EventBus, cache: RecordCache? = nil) {
        self.registry = registry
        self.bus = bus
        self.cache = cache
    }

    /// Queues a change and its announcement. Synchronous, so the order of calls is the order on
    /// disk; await the ticket to know the change is durable.
    @discardableResult
    func submit(_ change: Change?, event: DownloadEvent.Kind?) -> CommitTicket {
        let ticket = CommitTicket()
        lock.lock()
        switch change {
        case .noteFile(let id, let index, let file)?:
            noted[id, default: [:]][index] = file
            lock.unlock()
            guard let event else {
                ticket.resolve(nil)
                return ticket
            }
            // Nothing to commit now; its announcement keeps its place behind earlier writes.
            return submit(nil, event: event)
        case .saveFile(let id, let index, _)?:
            // Newer than the noted fact, which must not overwrite it later.
            noted[id]?[index] = nil
        case .add(let download)?:
            // A new file list: noted indexes may name other files.
            noted[download.id] = nil
        case .delete(let id)?:
            noted[id] = nil
        default:
            break
        }
        if change == nil && !running {
            // Nothing in flight to overtake: announce at once.
            lock.unlock()
            if let event { bus.publish(event) }
            ticket.resolve(nil)
            return ticket
        }
        pending.append(Item(change: change, event: event, ticket: ticket))
        let start = !running
        running = true
        lock.unlock()
        if start {
            Task.detached { [self] in await drain() }
        }
        return ticket
    }

    private func drain() async {
        while let (batch, noted) = takeBatch() {
            var failure: Error?
            do {
                try await write(batch, noted: noted)
            } catch {
                failure = error
            }
            for item in batch {
                if failure == nil { show(item.change) }
                if failure == nil, let event = item.event { bus.publish(event) }
                item.ticket?.resolve(failure)
            }
        }
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
        lock.lock()
        defer { lock.unlock() }
        let batch = pending
        pending.removeAll()
        if batch.isEmpty {
            running = false
            return nil
        }
        // Taken now, they are newer than every change of their file in the batch: a later
        // `.saveFile` or `.add` clears them.
        var flushed: [String: [Int: DownloadFile]] = [:]
        if !noted.isEmpty {
            for item in batch {
                guard case .save(let download)? = item.change, let files = noted.removeValue(forKey: download.id) else { continue }
                flushed[download.id] = files
            }
        }
        return (batch, flushed)
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
                download!.files[index] = file
            } else if !deleted {
                files[index] = file
            }
        }
    }

    private func write(_ batch: [Item], noted: [String: [Int: DownloadFile]]) async throws {
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
                if entry.withFiles { registryBatch.saves.append(download) } else { registryBatch.updates.append(download) }
            }
            for (index, file) in entry.files.sorted(by: { $0.key < $1.key }) {
                registryBatch.fileUpdates.append(FileUpdate(downloadID: id, index: index, file: file))
            }
        }
        try await registry.commit(registryBatch)
    }
}

/// The promise of one submitted change: resolved once its transaction has committed (or failed).
final class CommitTicket: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var failure: Error?
    private var waiters: [CheckedContinuation<Void, Error>] = []

    func resolve(_ error: Error?) {
        lock.lock()
        done = true
        failure = error
        let waiting = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in waiting {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            resumeOrPark(continuation)
        }
    }

    private func resumeOrPark(_ continuation: CheckedContinuation<Void, Error>) {
        lock.lock()
        if done {
            let failure = self.failure
            lock.unlock()
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
            return
        }
        waiters.append(continuation)
        lock.unlock()
    }
}
