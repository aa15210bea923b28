/// A set of interchangeable representations of one content component: the video in several
/// qualities, the audio in one language, one subtitle language.
package struct AdaptationSet: Equatable, Sendable {
    package var id: String?
    package var kind: MediaKind
    package var lang: String?
    /// The `Role` values (`main`, `alternate`, `subtitle`, `caption`, ...).
    package var roles: [String]
    package var label: String?
    package var protections: [ContentProtection]
    package var representations: [Representation]

    package init(id: String?, kind: MediaKind, lang: String?, roles: [String], label: String?,
                 protections: [ContentProtection], representations: [Representation]) {
        self.id = id
        self.kind = kind
        self.lang = lang
        self.roles = roles
        self.label = label
        self.protections = protections
        self.representations = representations
    }
}
