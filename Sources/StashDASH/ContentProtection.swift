/// A `ContentProtection` descriptor: the DRM system a representation is encrypted for, and the
/// default key id CENC names it by.
package struct ContentProtection: Equatable, Sendable {
    /// The ClearKey system's id (W3C Encrypted Media Extensions), the one stash can license.
    package static let clearKeySystem = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
    /// The scheme that says only "common encryption", with the key id and no system.
    package static let mp4Protection = "urn:mpeg:dash:mp4protection:2011"

    package var schemeIdUri: String
    package var value: String?
    /// `cenc:default_KID`, as written (a UUID with hyphens).
    package var defaultKID: String?

    package init(schemeIdUri: String, value: String?, defaultKID: String?) {
        self.schemeIdUri = schemeIdUri
        self.value = value
        self.defaultKID = defaultKID
    }
}
