import StashCore

/// The licence of an HLS package with DRM that a replace swapped in: the new copy's licence,
/// asked for as an add asks for it, is the download's once the folders are exchanged (its keys
/// under their own ids, `ReplacementKeys`), and the old copy's is given back through the
/// licence outbox, which tells its server, across restarts if it cannot be reached now. Until
/// the exchange the old copy holds its licence and keys, so a replace that fails keeps both.
extension EngineState {
    /// `old`: the record before the exchange; `new`: the one after it.
    mutating func replacedLicense(of old: Download, by new: Download, into effects: inout [EngineEffect]) {
        guard new.drm != nil else { return }
        let id = new.id
        if let terms = old.license, let drm = old.drm, terms != new.license {
            log(.info, "licence of the replaced copy released", ["id": "\(id)", "keys": "\(terms.kids.count)"], into: &effects)
            effects.append(.license(.keep(LicenseRelease(downloadID: id, drm: drm, kids: terms.kids, requestedAt: clock.now()))))
        }
        if let license = new.license, license != old.license {
            effects.append(.commit(nil, then: .license(LicenseEvent(
                id: id, kind: .downloaded, message: "\(license.kids.count) key(s) from \(new.drm?.licenseServer ?? "") for the new copy",
                status: LicenseStatus(new, at: clock.now())))))
        }
        armLicenseTimer(into: &effects)
    }
}
