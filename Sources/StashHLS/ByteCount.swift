/// Byte arithmetic that saturates instead of trapping: the figures come from a server's
/// playlist, and a hostile BANDWIDTH or BYTERANGE must not crash the daemon.
enum ByteCount {
    static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    static func bytes(_ range: ByteRange) -> Int64 { Int64(clamping: range.length) }

    /// `bitsPerSecond` x `seconds` / 8, rounded, at most `Int64.max`.
    static func estimate(bitsPerSecond: UInt64, seconds: Double) -> Int64 {
        let bytes = (Double(bitsPerSecond) * seconds / 8).rounded()
        guard bytes.isFinite, bytes > 0 else { return 0 }
        return bytes >= 9.2e18 ? .max : Int64(bytes)
    }
}
