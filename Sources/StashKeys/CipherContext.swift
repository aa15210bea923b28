import CCrypto
import StashCrypto

/// One libcrypto EVP cipher context. Every EVP call goes through `check`
/// (`CryptoError.check`), and a failure becomes a `.cipherFailed` error.
final class CipherContext {
    private let context: OpaquePointer

    init() throws {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw KeysError(.cipherFailed, "EVP_CIPHER_CTX_new failed: out of memory")
        }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// AES-128-CBC decryption without libcrypto's padding check; the caller checks PKCS7.
    func decryptAES128CBC(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        try Self.check(EVP_DecryptInit_ex(context, EVP_aes_128_cbc(), nil, key, iv), "EVP_DecryptInit_ex")
        try Self.check(EVP_CIPHER_CTX_set_padding(context, 0), "EVP_CIPHER_CTX_set_padding")
        var plain = [UInt8](repeating: 0, count: data.count + SegmentCipher.blockSize)
        var written: Int32 = 0
        var finished: Int32 = 0
        try plain.withUnsafeMutableBufferPointer { out in
            try Self.check(EVP_DecryptUpdate(context, out.baseAddress, &written, data, Int32(data.count)), "EVP_DecryptUpdate")
            try Self.check(EVP_DecryptFinal_ex(context, out.baseAddress! + Int(written), &finished), "EVP_DecryptFinal_ex")
        }
        plain.removeLast(plain.count - Int(written + finished))
        return plain
    }

    /// AES-128-CTR from the 16-byte counter block `counter` (CENC's 'cenc' scheme, where the
    /// block counter is the low 64 bits and carries on across a sample's protected ranges).
    func aes128CTR(_ data: [UInt8], key: [UInt8], counter: [UInt8]) throws -> [UInt8] {
        try Self.check(EVP_DecryptInit_ex(context, EVP_aes_128_ctr(), nil, key, counter), "EVP_DecryptInit_ex")
        var plain = [UInt8](repeating: 0, count: data.count + SegmentCipher.blockSize)
        var written: Int32 = 0
        try plain.withUnsafeMutableBufferPointer { out in
            try Self.check(EVP_DecryptUpdate(context, out.baseAddress, &written, data, Int32(data.count)), "EVP_DecryptUpdate")
        }
        plain.removeLast(plain.count - Int(written))
        return plain
    }

    private static func check(_ result: Int32, _ call: String) throws {
        do {
            try CryptoError.check(call, status: result)
        } catch {
            throw KeysError(.cipherFailed, "\(error)")
        }
    }
}
