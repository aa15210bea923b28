import Foundation

/// A ClearKey licence request (W3C EME, "License Request Format") for persistent keys, with
/// the action and the optional content id and service certificate fingerprint stash adds.
package struct LicenseRequest: Sendable {
    /// The key ids asked for: 16 bytes for a hex id, the UTF-8 of an opaque `skd://` id's text
    /// (at most 256 bytes) otherwise.
    package var kids: [[UInt8]]
    package var action: LicenseAction
    /// The content id the download was added with; nil: none.
    package var contentID: String?
    /// Lowercase hex SHA-256 of the service certificate's DER bytes; nil: no certificate.
    package var certificateSHA256: String?

    package init(kids: [[UInt8]], action: LicenseAction, contentID: String? = nil, certificateSHA256: String? = nil) {
        self.kids = kids
        self.action = action
        self.contentID = contentID
        self.certificateSHA256 = certificateSHA256
    }

    /// The JSON body to POST, e.g. `{"action":"acquire","kids":["…"],"type":"persistent-license"}`.
    /// Keys are sorted and slashes left unescaped, so the same request is always the same bytes.
    package func body() -> [UInt8] {
        var object: [String: Any] = [
            "kids": kids.map(Base64URL.encode),
            "type": "persistent-license",
            "action": action.rawValue,
        ]
        if let contentID { object["content_id"] = contentID }
        if let certificateSHA256 { object["certificate_sha256"] = certificateSHA256 }
        do {
            return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        } catch {
            // Strings and arrays of strings are always valid JSON.
            preconditionFailure("a licence request could not be encoded as JSON: \(error)")
        }
    }
}
