/// CENC 'cenc' sample decryption (ISO/IEC 23001-7 section 10.1): AES-128-CTR over a sample's
/// protected ranges taken as one stream, so the counter runs on from one subsample to the next.
package enum SampleCipher {
    /// The largest sample decrypted at once, far above any video frame: a bound on what one
    /// hostile sample may make stash allocate.
    package static let maxSampleBytes = 64 << 20

    /// Decrypts `protected` ranges of `bytes` in place.
    /// - Throws: `KeysError` with `.invalidKeyLength` or `.invalidIVLength` when `key` or
    ///   `counter` is not 16 bytes, `.invalidCiphertextLength` when a range is outside `bytes`
    ///   or the ranges pass `maxSampleBytes`.
    package static func decrypt(_ bytes: inout [UInt8], protected: [Range<Int>], key: [UInt8], counter: [UInt8]) throws {
        guard key.count == SegmentCipher.blockSize else {
            throw KeysError(.invalidKeyLength, "a CENC content key must be \(SegmentCipher.blockSize) bytes, got \(key.count)")
        }
        guard counter.count == SegmentCipher.blockSize else {
            throw KeysError(.invalidIVLength, "a CENC counter block must be \(SegmentCipher.blockSize) bytes, got \(counter.count)")
        }
        var total = 0
        for range in protected {
            guard range.lowerBound >= 0, range.upperBound <= bytes.count, range.count <= maxSampleBytes - total else {
                throw KeysError(.invalidCiphertextLength, "a protected range \(range) is outside the \(bytes.count) bytes or past \(maxSampleBytes) bytes a sample")
            }
            total += range.count
        }
        guard total > 0 else { return }
        var stream: [UInt8] = []
        stream.reserveCapacity(total)
        for range in protected { stream += bytes[range] }
        let plain = try CipherContext().aes128CTR(stream, key: key, counter: counter)
        var position = 0
        for range in protected {
            bytes.replaceSubrange(range, with: plain[position..<position + range.count])
            position += range.count
        }
    }
}
