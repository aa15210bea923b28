/// HLS AES-128 segment decryption (RFC 8216 section 4.3.2.4): AES-128-CBC over the whole
/// segment with PKCS7 padding, by libcrypto's EVP interface in one pass (one key schedule
/// per segment).
package enum SegmentCipher {
    /// The AES block size, which is also the key and IV size of HLS AES-128.
    package static let blockSize = 16

    /// Decrypts one AES-128 segment and strips its PKCS7 padding.
    ///
    /// Runs in time linear in `data.count`, so multi-megabyte segments are fine.
    /// - Throws: `KeysError` with `.invalidKeyLength` or `.invalidIVLength` when `key` or `iv`
    ///   is not 16 bytes, `.invalidCiphertextLength` when `data` is empty or not a whole number
    ///   of blocks (a truncated download), and `.badPadding` when the padding is wrong (usually
    ///   a wrong key or IV).
    package static func decrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard key.count == blockSize else {
            throw KeysError(.invalidKeyLength, "an AES-128 segment key must be \(blockSize) bytes, got \(key.count)")
        }
        guard iv.count == blockSize else {
            throw KeysError(.invalidIVLength, "an AES-128 segment IV must be \(blockSize) bytes, got \(iv.count)")
        }
        // PKCS7 always adds at least one byte, so even an empty segment has one block.
        guard !data.isEmpty, data.count % blockSize == 0 else {
            throw KeysError(
                .invalidCiphertextLength,
                "an AES-128 segment must be a positive multiple of \(blockSize) bytes, got \(data.count)")
        }
        // The padding is checked here, so the message can say what is wrong without the key.
        let plain = try CipherContext().decryptAES128CBC(data, key: key, iv: iv)
        let pad = Int(plain[plain.count - 1])
        guard pad >= 1, pad <= blockSize, plain[(plain.count - pad)...].allSatisfy({ $0 == UInt8(pad) }) else {
            throw KeysError(
                .badPadding,
                "the PKCS7 padding of a \(data.count)-byte AES-128 segment is invalid (wrong key or IV?)")
        }
        return Array(plain[..<(plain.count - pad)])
    }
}
