/// The error of the key manager: a code and a message that names the entry, the path or the
/// length involved. Messages never carry key bytes, so they are safe to log and to send to a
/// client. Failed system calls are thrown as `SystemCallError` instead, like the rest of stash.
package struct KeysError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Equatable, CaseIterable {
        /// An asset id outside `[A-Za-z0-9._-]`, or starting with '.'.
        case invalidAssetID
        /// An empty content key was given to store.
        case invalidKey
        /// `master.key` exists but cannot be used (wrong size, not a regular file). It is never
        /// replaced: a new master key would make every sealed entry unreadable.
        case invalidMasterKey
        /// A sealed entry failed authentication: tampered, truncated, moved from another
        /// asset or key id, or sealed under another master key.
        case unsealFailed
        /// A sealed entry starts with a format version this build does not know.
        case unsupportedFormat
        /// A segment key that is not 16 bytes.
        case invalidKeyLength
        /// A segment IV that is not 16 bytes.
        case invalidIVLength
        /// Segment ciphertext that is empty or not a whole number of 16-byte blocks.
        case invalidCiphertextLength
        /// The PKCS7 padding of a decrypted segment is wrong (usually a wrong key or IV).
        case badPadding
        /// libcrypto refused a call (out of memory, or a bug in how it is called).
        case cipherFailed
        /// A licence answer that is not the ClearKey JSON format: not a JSON object, too
        /// large, no `keys` array, an entry that is not an `oct` key in base64url, or a term
        /// (`expires_in`, `playback_duration`) out of range.
        case licenseMalformed
        /// A licence answer without a key for one of the requested key ids.
        case licenseKeyMissing
        /// A licence key that is not 16 bytes, so not an AES-128 content key.
        case licenseKeyLength
        /// Service certificate bytes that are neither a PEM nor a DER X.509 certificate.
        case certificateInvalid
        /// A service certificate whose validity starts after now.
        case certificateNotYetValid
        /// A service certificate whose validity ended.
        case certificateExpired

        package var name: String {
            switch self {
            case .invalidAssetID: return "INVALID_ASSET_ID"
            case .invalidKey: return "INVALID_KEY"
            case .invalidMasterKey: return "INVALID_MASTER_KEY"
            case .unsealFailed: return "UNSEAL_FAILED"
            case .unsupportedFormat: return "UNSUPPORTED_FORMAT"
            case .invalidKeyLength: return "INVALID_KEY_LENGTH"
            case .invalidIVLength: return "INVALID_IV_LENGTH"
            case .invalidCiphertextLength: return "INVALID_CIPHERTEXT_LENGTH"
            case .badPadding: return "BAD_PADDING"
            case .cipherFailed: return "CIPHER_FAILED"
            case .licenseMalformed: return "LICENSE_MALFORMED"
            case .licenseKeyMissing: return "LICENSE_KEY_MISSING"
            case .licenseKeyLength: return "LICENSE_KEY_LENGTH"
            case .certificateInvalid: return "CERTIFICATE_INVALID"
            case .certificateNotYetValid: return "CERTIFICATE_NOT_YET_VALID"
            case .certificateExpired: return "CERTIFICATE_EXPIRED"
            }
        }
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.name): \(message)" }
}
