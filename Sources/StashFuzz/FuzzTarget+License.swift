#if DEBUG
import StashKeys

extension FuzzTarget {
    /// The key ids asked for: the answer must carry keys for them, so the fuzzer can reach
    /// the key checks as well as the JSON ones.
    private static let requestedKeyIDs: [[UInt8]] = [Array(repeating: 0x11, count: 16), Array(0..<16)]

    static func license(_ bytes: UnsafeRawBufferPointer) {
        _ = try? LicenseResponse.parse(Array(bytes), requested: requestedKeyIDs, server: "https://licence.example.com")
    }
}
#endif
