import Foundation
import Logging
import StashFetch
import StashKeys

/// The disk work of a replace (`EngineState+Replace`), carried out off the engine's actor:
/// the swap of a new copy over the old one, the marking of a new folder, the discarding of a
/// new copy that will not be swapped in. Each ends by reporting its outcome as an input.
struct ReplacementWork: Sendable {
    let commits: CommitQueue
    let fetch: any FetchService
    let files: FilePool
    let keys: KeyStore
    let teardowns: Teardowns
    let assetsDir: String
    let logger: Logger
    /// Takes an outcome in on the engine.
    let report: @Sendable (EngineInput) async -> Void

    /// Carries out `effect`, one of a replace's.
    func perform(_ effect: EngineEffect) {
        switch effect {
        case .swapReplacement(let id, let folder, let temporary, let final):
            finish(id, EngineInput.replacementSwapped) { [files] in
                // The new copy's record is durable before its file takes the old one's name.
                try await commits.flushed()
                try await files.run { try ReplacementSwap.swap(in: folder, temporary: temporary, final: final) }
            }
        case .markReplacementFolder(let id, let folder, let folders):
            finish(id, EngineInput.replacementMarked) { [fetch, files, assetsDir] in
                try await fetch.syncFolders(folders, in: folder)
                try await files.run { try FolderSwap.mark(assetsDir: assetsDir, id: id) }
            }
        case .swapReplacementFolder(let id, let newKeys, let staleKeys):
            finish(id, EngineInput.replacementSwapped) { [files, keys, assetsDir, logger] in
                // The new copy's record is durable before its folder takes the old one's name.
                try await commits.flushed()
                try await files.run {
                    try FolderSwap.swap(assetsDir: assetsDir, id: id) {
                        do {
                            try ReplacementKeys.promote(keys, asset: id, paths: newKeys, stale: staleKeys)
                        } catch {
                            // Made again at the next start: the record names the new keys.
                            logger.error("a replace's keys could not be sealed under their ids", metadata: ["id": "\(id)", "error": "\(error)"])
                        }
                    }
                }
            }
        case .discardReplacementKeys(let id, let paths):
            teardowns.chain(id) { [keys] in ReplacementKeys.discard(keys, asset: id, paths: paths) }
        case .discardReplacement(let id, let folder, let temporary):
            teardowns.chain(id) { ReplacementSwap.discard(in: folder, temporary: temporary) }
        default:
            // Not a replace's: the engine carries it out.
            break
        }
    }

    /// Runs `work` in a task of its own and reports its failure, described, or nil.
    private func finish(_ id: String, _ outcome: @escaping @Sendable (String, String?) -> EngineInput, _ work: @escaping @Sendable () async throws -> Void) {
        let report = self.report
        Task {
            let failure: String?
            do {
                try await work()
                failure = nil
            } catch {
                failure = "\(error)"
            }
            await report(outcome(id, failure))
        }
    }
}
