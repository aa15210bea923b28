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
        let effects = try state.on(.maintenance(fact))
        var outcome = MaintenanceOutcome(effects, about: fact.id)
        let last = perform(effects)
        outcome.download = (outcome.download ?? fact.id.flatMap { state.entries[$0]?.download }).map(publicView)
        try await last?.wait()
        return outcome
    }

    func flush() async throws {
        try await commits.flushed()
    }
}
