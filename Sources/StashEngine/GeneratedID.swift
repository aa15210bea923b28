/// The id of a download added without one: 12 characters of [a-z0-9].
enum GeneratedID {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// One random word for all 12 characters (36^12 < 2^63): a getrandom per character was
    /// 12 system calls per added download.
    static func make(using generator: inout some RandomNumberGenerator) -> String {
        var word = UInt64.random(in: 0..<(1 << 63), using: &generator)
        var id = [UInt8]()
        id.reserveCapacity(12)
        for _ in 0..<12 {
            id.append(alphabet[Int(word % 36)])
            word /= 36
        }
        return String(decoding: id, as: UTF8.self)
    }
}
