import Foundation
import StashCore
import StashFetch

/// The interpreter: what `EngineState` decided, carried out in the order given. Nothing here
/// looks at a download's state; each effect is an order.
extension Engine {
    /// Decides upon a fact no state refuses (a report, a timer, a start) and carries out the
    /// decision. Returns the ticket of its last commit.
    @discardableResult
    func run(_ input: EngineInput) -> CommitTicket? {
        // Only requests are refused, and they come through `answer`.
        perform((try? state.on(input)) ?? [])
    }

    /// Decides upon a client's request about `id`, carries out the decision and answers with
    /// the record as its change of state is committed, once it is; as it is when the request
    /// changed nothing.
    func answer(_ input: EngineInput, id: String) async throws -> Download {
        var change: (ticket: CommitTicket, download: Download)?
        for effect in try state.on(input) {
            let ticket = perform(effect)
            guard change == nil, let ticket, case .commit(.save(let download)?, then: .stateChanged?) = effect, download.id == id else { continue }
            change = (ticket, publicView(download))
        }
        flight.flush()
        guard let change else { return try get(id: id) }
        try await change.ticket.wait()
        return change.download
    }

    /// Returns the ticket of the last commit.
    @discardableResult
    func perform(_ effects: [EngineEffect]) -> CommitTicket? {
        var last: CommitTicket?
        for effect in effects {
            if let ticket = perform(effect) { last = ticket }
        }
        flight.flush()
        return last
    }

    func perform(_ effect: EngineEffect) -> CommitTicket? {
        switch effect {
        case .commit(let change, let event):
            return commits.submit(change, event: event)
        case .startTransfer(let id, let index, let generation, let request):
            let notices = self.notices
            transfers[generation] = fetch.start(request) { event in
                notices.post(FetchNotice(id: id, index: index, generation: generation, event: event))
            }
        case .stopTransfers(let id, let generations):
            stopTransfers(id, generations: generations)
        case .startPlanning(let generation, let download, let attempts):
            let folder = layout.assetFolder(id: download.id)
            planner.start(download, generation: generation, folder: folder, preparation: hlsPreparation, attemptsBefore: attempts) { await self.run($0) }
        case .stopPlanning(let id, let generation):
            if let planning = planner.stop(generation) { teardowns.chain(id) { await planning.value } }
        case .removeAfterStop(let id, let path):
            teardowns.chainIfPending(id) { try? SystemCallError.removeFile(path) }
        case .syncFolders(let id, let folders, let synced):
            let (fetch, folder) = (self.fetch, layout.assetFolder(id: id))
            Task { self.run(.foldersSynced(id, failure: await fetch.syncFailure(folders, in: folder), synced: synced)) }
        case .flightStarted(let id):
            flight.started(id)
            activity.report(state.queue.active.count)
        case .flightEnded(let id):
            flight.ended(id)
            activity.report(state.queue.active.count)
        case .watch(let download):
            maintenance.diskWatch.watch(download)
        case .unwatch(let id):
            maintenance.diskWatch.unwatch(id)
        case .license(let order):
            licenses.perform(order, config: config)
        case .arm(let seconds, let input):
            arm(after: seconds, input)
        case .forgetStorageInfo:
            maintenance.storage.forget()
        case .setRateLimit(let bytesPerSecond):
            fetch.setRateLimit(bytesPerSecond)
        case .setGroupRateLimit(let group, let bytesPerSecond):
            fetch.setGroupRateLimit(group, bytesPerSecond)
        case .log(let level, let message, let metadata):
            // The module named, not worked out from `#fileID` anew for each line.
            logger.log(level: level, message, metadata: metadata, source: "StashEngine")
        case .swapReplacement, .markReplacementFolder, .swapReplacementFolder, .discardReplacementKeys, .discardReplacement:
            ReplacementWork(
                commits: commits, fetch: fetch, files: files, keys: keys, teardowns: teardowns, assetsDir: layout.assetsDir, logger: logger,
                report: { [weak self] in await self?.run($0) }
            ).perform(effect)
        case .startReplacePlanning(let generation, let download):
            let folder = layout.assetsDir + "/" + FolderSwap.siblingName(download.id)
            planner.start(download, generation: generation, folder: folder, preparation: hlsPreparation, keyPrefix: ReplacementKeys.prefix) { input in
                await self.run(input)
            }
        }
        return nil
    }

    /// Takes `input` in once `seconds` have passed on the engine's clock.
    private func arm(after seconds: Double, _ input: EngineInput) {
        Task { [weak self, clock] in
            await clock.sleep(seconds)
            await self?.run(input)
        }
    }
}
