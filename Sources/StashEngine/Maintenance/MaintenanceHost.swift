import StashCore

/// What the maintenance services may ask of the engine: read its records, have a fact
/// decided, enter or cancel a download. The `Engine` actor conforms; a service gets it with
/// each call and keeps no reference to it.
protocol MaintenanceHost: Actor {
    /// The engine's record of `id`, its files included; nil when there is none.
    func download(_ id: String) -> Download?
    /// Every download, those being removed included, in list order.
    func downloads() -> [Download]
    /// The committed record as a client gets it (GetDownload).
    func get(id: String) throws -> Download
    /// What verify's findings call for (`EngineState.decideRepairs`): nothing changes yet but
    /// the holds on the downloads whose damaged files are deleted first. Each decision must
    /// come back as `.repairDamage`, which ends its hold.
    func decideRepairs(_ findings: [VerifyFinding], repair: Bool) -> [DamageRepair]
    /// Has `fact` decided, carries the decision out, and returns once what it committed is
    /// durable. Throws, with nothing changed, what the state refused.
    func submit(_ fact: MaintenanceInput) async throws -> MaintenanceOutcome
    /// Enters a new download and returns once its record is committed.
    func insert(_ download: Download) async throws
    /// Cancels a download as CancelDownload does (files deleted, a held licence released).
    func cancel(id: String) async throws
    /// Returns once every change decided so far is durable.
    func flush() async throws
    /// What the records say for GetSystemInfo (`EngineState.storageFigures`).
    func storageFigures() -> StorageService.Figures
    /// How a stream's playlists are read under the daemon's settings (subtitle renditions).
    var hlsPreparation: HLSPreparation { get }
}

/// What a decided `MaintenanceInput` did to its download.
struct MaintenanceOutcome: Sendable {
    /// The download as the decision's first commit of it has it (its change of state, or its
    /// new file list); as it is after the decision when nothing of it was committed. Nil when
    /// there is none.
    var download: Download?
    /// Its state changed.
    var stateChanged = false
    /// Whether the decision changed anything at all.
    var changed = false

    /// What `effects`, a decision upon a fact about download `id`, do to it: the record as its
    /// first commit of it (a save or an add) has it, whether a commit of it changed its state.
    init(_ effects: [EngineEffect], about id: String?) {
        changed = !effects.isEmpty
        guard let id else { return }
        for case .commit(let change?, let event) in effects {
            switch change {
            case .save(let download) where download.id == id, .add(let download) where download.id == id:
                if self.download == nil { self.download = download }
                if case .stateChanged? = event { stateChanged = true }
            default:
                break
            }
        }
    }
}
