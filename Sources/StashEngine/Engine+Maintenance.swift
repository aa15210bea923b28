import StashCore

/// What the maintenance services may ask of the engine (`MaintenanceHost`); their requests go
/// to them (`Engine.maintenance`), not through the engine.
extension Engine: MaintenanceHost {
    func storageFigures() -> StorageService.Figures {
        state.storageFigures()
    }

    func download(_ id: String) -> Download? {
        state.entries[id]?.download
    }

    func downloads() -> [Download] {
        state.order.compactMap { state.entries[$0]?.download }
    }

    func decideRepairs(_ findings: [VerifyFinding], repair: Bool) -> [DamageRepair] {
        state.decideRepairs(findings, repair: repair)
    }

    func submit(_ fact: MaintenanceInput) async throws -> MaintenanceOutcome {
        var outcome = MaintenanceOutcome()
        var last: CommitTicket?
        for effect in try state.on(.maintenance(fact)) {
            outcome.changed = true
            guard let ticket = perform(effect) else { continue }
            last = ticket
            guard let id = fact.id, case .commit(let change?, let event) = effect else { continue }
            switch change {
            case .save(let download) where download.id == id, .add(let download) where download.id == id:
                if outcome.download == nil { outcome.download = publicView(download) }
                if case .stateChanged? = event { outcome.stateChanged = true }
            default:
                break
            }
        }
        if outcome.download == nil, let id = fact.id, let download = state.entries[id]?.download { outcome.download = publicView(download) }
        try await last?.wait()
        return outcome
    }

    func flush() async throws {
        try await commits.submit(nil, event: nil).wait()
    }
}
