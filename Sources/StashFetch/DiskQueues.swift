import Dispatch
import StashCore

/// The fetch thread's disk work, done elsewhere: part files opened on serial disk queues,
/// committed on `FileSyncer`'s threads, each result posted back through the inbox.
///
/// Creating folders and opening files block in the kernel for milliseconds (inode
/// allocation, reading a resumed part back to hash it); done on the fetch thread they would
/// stall every other transfer. Several serial queues rather than one concurrent queue:
/// Dispatch would run a concurrent queue on as many threads as cores, and a thread waiting on
/// the disk does not use its core.
final class DiskQueues {
    private let queues = (0..<8).map { DispatchQueue(label: "stash.fetch.disk.\($0)", qos: .userInitiated) }
    private let work = DispatchGroup()
    private let inbox: FetchInbox
    private let syncer: FileSyncer

    init(inbox: FetchInbox, syncer: FileSyncer) {
        self.inbox = inbox
        self.syncer = syncer
    }

    /// Opens the part files of transfers started together in one go on one queue (a batch of a
    /// bundle's files costs one thread wake-up, not one per file), hashing what a file holds
    /// when `rehash`; posts `.opened` for each.
    func open(_ files: [(TransferID, FetchRequest)], rehash: Bool) {
        guard let first = files.first else { return }
        let (inbox, syncer) = (self.inbox, self.syncer)
        work.enter()
        queue(for: first.0).async { [work] in
            defer { work.leave() }
            DiskThreadPolicy.adopt()
            for (id, request) in files {
                let result: Result<PartFile, FetchFailure>
                do {
                    let file = try PartFile(folder: request.folder, relativePath: request.relativePath, hashing: !request.expectedSHA256.isEmpty)
                    file.foldersCount = syncer.now()
                    if rehash, file.size > 0 { try file.hashExistingContent() }
                    result = .success(file)
                } catch {
                    result = .failure(.thrown(error))
                }
                if !inbox.post(.opened(id, result)), case .success(let file) = result { file.closeFile() }
            }
        }
    }

    /// Opens a deferred part file that outgrew memory; posts `.opened`. The caller's transfer
    /// is paused and leaves the file alone until then.
    func openDeferred(_ file: PartFile, for id: TransferID) {
        let (inbox, syncer) = (self.inbox, self.syncer)
        work.enter()
        queue(for: id).async { [work] in
            defer { work.leave() }
            DiskThreadPolicy.adopt()
            let result: Result<PartFile, FetchFailure>
            do {
                try file.openDeferred()
                file.foldersCount = syncer.now()
                result = .success(file)
            } catch {
                result = .failure(.thrown(error))
            }
            _ = inbox.post(.opened(id, result))
        }
    }

    /// Syncs and renames the complete `file` of `transfer` on a sync thread, which posts the
    /// transfer's final event (`.committed`): handing each file back to a disk queue cost two
    /// thread wake-ups per file, more than the rename itself.
    func commit(_ file: PartFile, of transfer: Transfer, bytes: Int64, digest: String) {
        let (id, inbox, logger) = (transfer.id, inbox, transfer.logger)
        work.enter()
        syncer.commit(file, durability: transfer.request.durability) { [work] failure in
            defer { work.leave() }
            if let failure {
                _ = inbox.post(.committed(id, FetchFailure.thrown(failure).finalEvent))
            } else {
                logger.debug("transfer completed", metadata: ["transfer": "\(id.rawValue)", "bytes": "\(bytes)"])
                _ = inbox.post(.committed(id, .completed(bytes: bytes, sha256: digest)))
            }
        }
    }

    /// Returns once every open and commit handed over has posted its result, so no file is
    /// closed under a queue at shutdown.
    func waitForAll() {
        work.wait()
    }

    /// Spreads disk work over the queues by transfer, so one slow open holds up few others.
    private func queue(for id: TransferID) -> DispatchQueue {
        queues[Int(id.rawValue % UInt64(queues.count))]
    }
}
