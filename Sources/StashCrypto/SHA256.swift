import CCrypto

/// SHA-256 through libcrypto's EVP digest, fed in pieces (a file as it arrives, a list of
/// names). A class because it owns libcrypto's context; one instance per digest.
///
/// libcrypto's SHA-256 fails only when it cannot allocate its context, where Swift's own
/// allocations would have trapped first; so does this, and its calls do not throw.
package final class SHA256 {
    /// The digest's length in bytes.
    package static let byteCount = 32

    private let context: OpaquePointer

    package init() {
        context = Self.required("EVP_MD_CTX_new", EVP_MD_CTX_new())
        Self.required("EVP_DigestInit_ex", EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 ? () : nil)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        Self.required("EVP_DigestUpdate", EVP_DigestUpdate(context, base, bytes.count) == 1 ? () : nil)
    }

    package func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything fed so far. Taken from a copy of the context, so the hasher
    /// goes on: a part file's digest is read and then more bytes may still come.
    package func finalize() -> [UInt8] {
        let copy = Self.required("EVP_MD_CTX_new", EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(copy) }
        Self.required("EVP_MD_CTX_copy_ex", EVP_MD_CTX_copy_ex(copy, context) == 1 ? () : nil)
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(copy, $0.baseAddress, &length) }
        Self.required("EVP_DigestFinal_ex", status == 1 && length == UInt32(Self.byteCount) ? () : nil)
        return digest
    }

    /// The digest as 64 lowercase hex digits.
    package func finalizeHex() -> String {
        Self.hex(finalize())
    }

    /// The digest of `bytes` in one call.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Lowercase hex, two digits a byte.
    package static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * byteCount)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func required<Value>(_ call: String, _ value: Value?) -> Value {
        do {
            return try CryptoError.check(call, value)
        } catch {
            fatalError("libcrypto SHA-256 could not allocate: \(error)")
        }
    }
}
