/// A `ContentProtection` descriptor: the DRM system a representation is encrypted for, and the
/// default key id CENC names it by.
package struct ContentProtection: Equatable, Sendable {
    /// The ClearKey system's id (W3C Encrypted Media Extensions), the one stash can license.
    package static let clearKeySystem = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
    /// The scheme that says only "common encryption", with the key id and no system.
    package static let mp4Protection = "urn:mpeg:dash:mp4protection:2011"

    /// DRM systems stash cannot use (no CDM runs here), by their system ids, to refuse them by name.
    static let systemsWithoutCDM = [
        "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine",
        "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay",
        "urn:uuid:f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
    ]

    /// The name of a DRM system only a CDM can use (`Widevine`), nil for ClearKey and the
    /// common-encryption scheme.
    package var systemWithoutCDM: String? { Self.systemsWithoutCDM[schemeIdUri] }

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
