import StashCore

/// SetDownload as one change: every field's refusals are met on the record as it is before any
/// field is applied, so a request with a good URL and headers the download cannot take changes
/// nothing; then the fields are applied in order (URL, headers, licence headers, rate limit,
/// network and on-battery rules, priority) and the record is saved once, with the final record, before the events of the
/// fields that changed (one `SettingsChanged` each, as a request of one field sends).
extension EngineState {
    mutating func setDownload(_ changes: DownloadChanges, into effects: inout [EngineEffect]) throws {
        let id = changes.id
        guard entries[id] != nil else { throw StashError.notFound(id: id) }
        // No field's change makes a later field's refusal: those look at the id, the state
        // (REMOVING), a replace under way and the DRM parameters, which no field changes.
        if let uri = changes.uri { _ = try checkURI(id, uri, file: changes.file) }
        if let change = changes.headers { _ = try checkHeaders(id, change) }
        if let change = changes.licenseHeaders { _ = try checkLicenseHeaders(id, change) }
        if let limit = changes.rateLimit { _ = try checkRateLimit(id, limit) }
        if let priority = changes.priority { _ = try checkPriority(id, priority) }
        let desktopRules = changes.network != nil || changes.onBattery != nil
        if desktopRules { try checkDesktopRules(id) }
        var applied: [EngineEffect] = []
        if let uri = changes.uri { try setURI(id, uri, file: changes.file, into: &applied) }
        if let change = changes.headers { try setHeaders(id, change, into: &applied) }
        if let change = changes.licenseHeaders { try setLicenseHeaders(id, change, into: &applied) }
        if let limit = changes.rateLimit { try setRateLimit(id, limit, into: &applied) }
        if desktopRules { try setDesktopRules(id, network: changes.network, onBattery: changes.onBattery, into: &applied) }
        if let priority = changes.priority { try setPriority(id, priority, into: &applied) }
        effects += Self.savedOnce(id, entries[id]?.download, applied)
    }

    /// `effects` with every save of `id`'s record folded into one of `final` before them; their
    /// events stay in order, each after it.
    private static func savedOnce(_ id: String, _ final: Download?, _ effects: [EngineEffect]) -> [EngineEffect] {
        var folded: [EngineEffect] = []
        var saved = false
        for effect in effects {
            guard case .commit(.save(let record)?, let event) = effect, record.id == id else {
                folded.append(effect)
                continue
            }
            saved = true
            if let event { folded.append(.commit(nil, then: event)) }
        }
        guard saved, let final else { return folded }
        return [.commit(.save(final), then: nil)] + folded
    }
}
