import CCrypto

/// Bytes from libcrypto's CSPRNG, for keys and nonces.
package enum SecureRandom {
    package static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        guard !bytes.isEmpty else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(clamping: $0.count)) }
        try CryptoError.check("RAND_bytes", status: status)
        return bytes
    }
}
