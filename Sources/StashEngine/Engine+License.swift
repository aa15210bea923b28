import StashCore

/// Licences (PROTOCOL.md, "Licence exchange") are `LicenseManager`'s: a client's licence
/// requests go to it (`Engine.licenses`) without the engine, and what it learns comes back
/// through `LicenseHost` as a `LicenseReport`, which `EngineState` decides upon like any other
/// input.
extension Engine: LicenseHost {
    func licensedInOrder() -> [String] {
        state.licensedInOrder()
    }

    func licenseRecord(_ id: String) throws -> Download {
        guard let download = state.entries[id]?.download else { throw StashError.notFound(id: id) }
        return download
    }

    func report(_ report: LicenseReport) async throws -> Download? {
        let ticket = perform(try state.on(.license(report)))
        let record = report.id.flatMap { state.entries[$0]?.download }
        try await ticket?.wait()
        return record
    }
}
