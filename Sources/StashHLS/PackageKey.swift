/// An AES-128 key a package playlist refers to. The download stores the key under `uri` in
/// the key store, never in the asset folder; `stash export` writes it at `path`, next to the
/// playlist that names it, so the exported folder plays without the daemon.
package struct PackageKey: Equatable, Sendable {
    /// The absolute key URI, which is also the id the key is stored under.
    package var uri: String
    /// Relative to the asset folder, e.g. `video/key0.key`.
    package var path: String
    /// The id a licence server knows the key by (`SegmentKey.licenseKeyID`).
    package var licenseKeyID: [UInt8]?

    package init(uri: String, path: String, licenseKeyID: [UInt8]? = nil) {
        self.uri = uri
        self.path = path
        self.licenseKeyID = licenseKeyID
    }

    /// The key can only come from a licence server.
    package var isSKD: Bool { SKDURI.isSKD(uri[...]) }
}
