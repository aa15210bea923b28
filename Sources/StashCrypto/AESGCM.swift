import CCrypto

/// AES-256-GCM, as the key store seals content keys: the sealed form is the 12-byte nonce,
/// the ciphertext and the 16-byte tag, one after the other (the "combined" layout sealed
/// entries have always had on disk).
package enum AESGCM {
    package static let keyByteCount = 32
    package static let nonceByteCount = 12
    package static let tagByteCount = 16

    /// Seals `plaintext` under `key` with a fresh random nonce, binding `authenticating` to it.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], authenticating data: [UInt8]) throws(CryptoError) -> [UInt8] {
        let nonce = try SecureRandom.bytes(nonceByteCount)
        return try seal(plaintext, key: key, nonce: nonce, authenticating: data)
    }

    /// Seals with the nonce given; only for known-answer tests, since a nonce must never be
    /// used twice under one key.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        let context = try Context()
        try CryptoError.check("EVP_EncryptInit_ex", status: EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce))
        var length: Int32 = 0
        if !data.isEmpty {
            try CryptoError.check("EVP_EncryptUpdate", status: EVP_EncryptUpdate(context.pointer, nil, &length, data, Int32(data.count)))
        }
        var sealed = nonce + [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try sealed.withUnsafeMutableBufferPointer { (out: inout UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) in
            guard let base = out.baseAddress else { return }
            var written: Int32 = 0
            if !plaintext.isEmpty {
                try CryptoError.check(
                    "EVP_EncryptUpdate", status: EVP_EncryptUpdate(context.pointer, base + nonceByteCount, &written, plaintext, Int32(plaintext.count)))
            }
            var final: Int32 = 0
            try CryptoError.check("EVP_EncryptFinal_ex", status: EVP_EncryptFinal_ex(context.pointer, base + nonceByteCount + Int(written), &final))
            try CryptoError.check(
                "EVP_CTRL_GCM_GET_TAG",
                status: EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), base + nonceByteCount + plaintext.count))
        }
        return sealed
    }

    /// Opens what `seal` made; throws when it is too short, was sealed under another key, or
    /// was changed (the tag, or `authenticating`, does not match).
    package static func open(_ sealed: ArraySlice<UInt8>, key: [UInt8], authenticating data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= nonceByteCount + tagByteCount else {
            throw CryptoError(call: "AES-GCM open", reason: "\(sealed.count) bytes, shorter than a nonce and a tag (\(nonceByteCount + tagByteCount))")
        }
        let bytes = Array(sealed)
        let nonce = Array(bytes[0..<nonceByteCount])
        let ciphertext = Array(bytes[nonceByteCount..<(bytes.count - tagByteCount)])
        var tag = Array(bytes[(bytes.count - tagByteCount)...])
        try checkSizes(key: key, nonce: nonce)
        let context = try Context()
        try CryptoError.check("EVP_DecryptInit_ex", status: EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce))
        var length: Int32 = 0
        if !data.isEmpty {
            try CryptoError.check("EVP_DecryptUpdate", status: EVP_DecryptUpdate(context.pointer, nil, &length, data, Int32(data.count)))
        }
        var plain = [UInt8](repeating: 0, count: ciphertext.count)
        var written: Int32 = 0
        try plain.withUnsafeMutableBufferPointer { (out: inout UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) in
            if !ciphertext.isEmpty {
                try CryptoError.check(
                    "EVP_DecryptUpdate", status: EVP_DecryptUpdate(context.pointer, out.baseAddress, &written, ciphertext, Int32(ciphertext.count)))
            }
        }
        try CryptoError.check(
            "EVP_CTRL_GCM_SET_TAG", status: EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &tag))
        var final: Int32 = 0
        var spare = [UInt8](repeating: 0, count: 16)
        // Fails when the tag does not match: the sealed bytes or the authenticated data changed.
        try CryptoError.check("EVP_DecryptFinal_ex", status: EVP_DecryptFinal_ex(context.pointer, &spare, &final))
        return plain
    }

    private static func checkSizes(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keyByteCount else {
            throw CryptoError(call: "AES-GCM", reason: "a key of \(key.count) bytes; AES-256 takes \(keyByteCount)")
        }
        guard nonce.count == nonceByteCount else {
            throw CryptoError(call: "AES-GCM", reason: "a nonce of \(nonce.count) bytes; expected \(nonceByteCount)")
        }
    }

    /// One EVP cipher context, freed when done.
    private final class Context {
        let pointer: OpaquePointer

        init() throws(CryptoError) {
            pointer = try CryptoError.check("EVP_CIPHER_CTX_new", EVP_CIPHER_CTX_new())
        }

        deinit {
            EVP_CIPHER_CTX_free(pointer)
        }
    }
}
