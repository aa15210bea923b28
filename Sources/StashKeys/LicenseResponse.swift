import Foundation

/// The content keys and terms of a ClearKey licence (W3C EME, "License Format"):
/// `{"keys":[{"kty":"oct","kid":"<b64url>","k":"<b64url>"}],"type":"persistent-license",
/// "expires_in":N,"playback_duration":M}`, where the two terms, in seconds, are stash's
/// additions and optional.
package struct LicenseResponse: Sendable {
    /// The requested keys by base64url key id, 16 bytes each.
    package var keys: [String: [UInt8]]
    /// Seconds the licence lasts from now; nil: it never expires.
    package var expiresIn: Int?
    /// Seconds of the playback window; nil: none.
    package var playbackDuration: Int?

    package init(keys: [String: [UInt8]], expiresIn: Int?, playbackDuration: Int?) {
        self.keys = keys
        self.expiresIn = expiresIn
        self.playbackDuration = playbackDuration
    }

    /// A licence is a few keys of JSON; anything larger is not one.
    package static let maximumSize = 1 << 20
    /// The longest term accepted; a larger one is a unit mistake (milliseconds) or garbage.
    package static let maximumTerm = 10 * 365 * 86_400
    /// An AES-128 content key.
    static let keySize = 16

    /// Reads the licence `body` that `server` sent for the keys `kids`. Keys for key ids that
    /// were not requested are ignored.
    ///
    /// - Throws: `KeysError` naming `server` and the field: `.licenseMalformed` for a body
    ///   that is too large or not the format above, or a term that is not a whole number of
    ///   seconds from 1 to `maximumTerm`; `.licenseKeyMissing` when a requested key id has no
    ///   key; `.licenseKeyLength` when a requested key is not 16 bytes. No message repeats
    ///   the body or a key.
    package static func parse(_ body: [UInt8], requested kids: [[UInt8]], server: String) throws -> LicenseResponse {
        func malformed(_ message: String) -> KeysError {
            KeysError(.licenseMalformed, "the licence from \(server) \(message)")
        }
        guard body.count <= maximumSize else {
            throw malformed("is \(body.count) bytes, more than the \(maximumSize) bytes a licence may be")
        }
        guard let document = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
              case .object(let fields) = document else {
            throw malformed("is not a JSON object (\(body.count) bytes)")
        }
        guard let keysField = fields["keys"] else { throw malformed("has no 'keys' array") }
        guard case .array(let entries) = keysField else {
            throw malformed("has a 'keys' field that is \(keysField.kind), not an array")
        }

        let requested = Set(kids.map(Base64URL.encode))
        var keys: [String: [UInt8]] = [:]
        for (index, entry) in entries.enumerated() {
            let name = "keys[\(index)]"
            guard case .object(let key) = entry else {
                throw malformed("has a \(name) that is \(entry.kind), not an object")
            }
            guard case .string("oct")? = key["kty"] else {
                throw malformed("has \(name) with \(describe("kty", key["kty"])); a ClearKey key has kty \"oct\"")
            }
            guard case .string(let kidText)? = key["kid"], let kid = Base64URL.decode(kidText) else {
                throw malformed("has a \(name).kid that is not base64url")
            }
            // Named by its canonical spelling, the one the requested key ids are compared in.
            let kidName = Base64URL.encode(kid)
            guard case .string(let keyText)? = key["k"], let keyBytes = Base64URL.decode(keyText) else {
                throw malformed("has a \(name).k (for kid \(kidName)) that is not base64url")
            }
            guard requested.contains(kidName) else { continue }
            guard keyBytes.count == keySize else {
                throw KeysError(
                    .licenseKeyLength,
                    "the licence from \(server): the key for kid \(kidName) is \(keyBytes.count) bytes; an AES-128 content key is \(keySize)")
            }
            guard keys[kidName] == nil || keys[kidName] == keyBytes else {
                throw malformed("has two different keys for kid \(kidName)")
            }
            keys[kidName] = keyBytes
        }
        for kid in requested.sorted() where keys[kid] == nil {
            throw KeysError(.licenseKeyMissing, "the licence from \(server) has no key for kid \(kid)")
        }
        return LicenseResponse(
            keys: keys,
            expiresIn: try term("expires_in", in: fields, malformed: malformed),
            playbackDuration: try term("playback_duration", in: fields, malformed: malformed))
    }

    /// A string field as a message names it: quoted and cut short, or what is there instead.
    private static func describe(_ field: String, _ value: JSONValue?) -> String {
        guard let value else { return "no \(field)" }
        guard case .string(let text) = value else { return "a \(field) that is \(value.kind)" }
        return "\(field) \(String(reflecting: String(text.prefix(32))))"
    }

    /// A licence term in seconds: absent, or a whole number from 1 to `maximumTerm`.
    private static func term(_ field: String, in fields: [String: JSONValue], malformed: (String) -> KeysError) throws -> Int? {
        guard let value = fields[field] else { return nil }
        let limit = "it must be a whole number of seconds from 1 to \(maximumTerm) (10 years)"
        switch value {
        case .integer(let seconds):
            guard seconds >= 1, seconds <= Int64(maximumTerm) else { throw malformed("has \(field) \(seconds); \(limit)") }
            return Int(seconds)
        case .number(let seconds):
            throw malformed("has \(field) \(seconds); \(limit)")
        default:
            throw malformed("has \(field) that is \(value.kind); \(limit)")
        }
    }
}
