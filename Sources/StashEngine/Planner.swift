import StashCore
import Synchronization

/// Plannings: a download's playlists or MPD read off the engine (`HLSPreparation`, which hands
/// an MPD to `DASHPreparation`), one task each, by generation. What a planning finds goes back to the
/// engine as an input (`.planned`, `.planningWaitsForNetwork`), and `EngineState` decides what
/// it changes.
final class Planner: Sendable {
    private let plannings = Mutex<[UInt64: Task<Void, Never>]>([:])

    /// Reads `download`'s playlists into `folder` with `preparation`, and reports to `engine`;
    /// the keys are sealed under their ids with `keyPrefix` before them. With `attemptsBefore`,
    /// a failed request that may be tried again ends the planning (`FetchRetryLater`), its
    /// attempts counting on from there; without, it is retried inside.
    func start(
        _ download: Download, generation: UInt64, folder: String, preparation: HLSPreparation, keyPrefix: String = "",
        attemptsBefore: Int? = nil, report engine: @escaping @Sendable (EngineInput) async -> Void
    ) {
        let id = download.id
        var reading = preparation
        if let attemptsBefore {
            reading.retriesOutside = true
            reading.attemptsBefore = attemptsBefore
        }
        reading.waitingForNetwork = { Task { await engine(.planningWaitsForNetwork(id, generation: generation)) } }
        let preparation = reading
        let options = download.hls ?? HLSOptions()
        let held = HLSPreparation.HeldLicense(drm: download.drm, terms: download.license)
        plannings.withLock { plannings in
            plannings[generation] = Task.detached {
                let result: Result<HLSPreparation.Prepared, Error>
                do {
                    result = .success(
                        try await preparation.prepare(id: id, uri: download.uri, headers: download.headers, options: options, folder: folder, held: held,
                            keyPrefix: keyPrefix))
                } catch {
                    result = .failure(error)
                }
                self.plannings.withLock { _ = $0.removeValue(forKey: generation) }
                await engine(.planned(id, generation: generation, result))
            }
        }
    }

    /// Cancels the planning; returns its task, which a removal waits for (it may be writing
    /// playlists into the folder being deleted), or nil when it has ended.
    func stop(_ generation: UInt64) -> Task<Void, Never>? {
        let planning = plannings.withLock { $0.removeValue(forKey: generation) }
        planning?.cancel()
        return planning
    }
}
