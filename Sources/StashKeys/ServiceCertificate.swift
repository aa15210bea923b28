import StashCrypto
import Foundation

/// A licence server's service certificate, as far as stash uses it: its fingerprint goes in
/// every licence request (`certificate_sha256`), and its validity says whether it may.
package struct ServiceCertificate: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the certificate's DER bytes, as `openssl x509 -fingerprint
    /// -sha256` prints it without colons.
    package var sha256: String
    package var notBefore: Date
    package var notAfter: Date

    /// Reads a PEM or DER X.509 certificate fetched from `source` and checks that it is valid
    /// at `now`.
    ///
    /// - Throws: `KeysError` naming `source`: `.certificateInvalid` (with the byte count) when
    ///   the bytes are not a certificate, `.certificateNotYetValid` before its notBefore and
    ///   `.certificateExpired` from its notAfter on, both with the date in ISO 8601.
    package static func parse(_ bytes: [UInt8], at now: Date, source: String) throws -> ServiceCertificate {
        let certificate = try X509Certificate(parsing: bytes, source: source)
        let parsed = ServiceCertificate(
            sha256: SHA256.hex(SHA256.hash(try certificate.der())),
            notBefore: try certificate.notBefore, notAfter: try certificate.notAfter)
        let formatter = ISO8601DateFormatter()
        guard now >= parsed.notBefore else {
            throw KeysError(
                .certificateNotYetValid,
                "the service certificate from \(source) is not valid before \(formatter.string(from: parsed.notBefore))")
        }
        // Expired from notAfter on, the same rule as a licence's expiry.
        guard now < parsed.notAfter else {
            throw KeysError(
                .certificateExpired,
                "the service certificate from \(source) expired at \(formatter.string(from: parsed.notAfter))")
        }
        return parsed
    }
}
