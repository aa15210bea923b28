/// What a licence request asks of the server; the raw value is the request's `action`.
package enum LicenseAction: String, Sendable {
    /// The first licence for the keys.
    case acquire
    /// An extension of a licence held.
    case renew
    /// The keys are deleted; the server may count the licence as no longer in use.
    case release
}
