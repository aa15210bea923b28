#if DEBUG
import StashDASH
import StashKeys

extension FuzzTarget {
    /// The input's first two bytes (big-endian) say how many of the rest are the
    /// initialization segment; the remainder is a media segment read with the tracks the
    /// initialization segment protects (else one made-up track 1), each sample then decrypted.
    static func cenc(_ bytes: UnsafeRawBufferPointer) {
        let input = Array(bytes)
        guard input.count >= 2 else { return }
        let split = min(input.count, 2 + (Int(input[0]) << 8 | Int(input[1])))
        let initialization = Array(input[2..<split])
        var tracks = (try? CENCInit.clear(initialization))?.tracks ?? []
        if tracks.isEmpty { tracks = [ProtectedTrack(trackID: 1, scheme: "cenc", keyID: Array(repeating: 0, count: 16), ivSize: 8)] }
        guard let fragment = try? CENCFragment(Array(input[split...]), tracks: tracks) else { return }
        var clear = fragment.bytes
        for sample in fragment.samples {
            try? SampleCipher.decrypt(&clear, protected: sample.protected, key: Array(repeating: 7, count: 16), counter: sample.counter)
        }
    }
}
#endif
