import Foundation

/// The id of a download added without one: 12 characters of [a-z0-9], the first 8 the
/// milliseconds since 2020 and the last 4 random.
///
/// Time first, so ids made one after another sort together: the registry keys two b-trees by
/// the id (the download's and its files'), and a random id put each add on a leaf page of its
/// own in each, every one of them a page more in the next commit's log. With ids in order the
/// adds of a commit share the rightmost leaves: 2,000 single-file adds wrote 37 % fewer log
/// pages (bench/HISTORY.md, 2026-11-27).
enum GeneratedID {
    // In byte order, so the ids sort as their times do (SQLite compares text bytewise).
    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
    /// 2020-01-01 UTC, in milliseconds since 1970: 36^8 milliseconds after it is the year 2109.
    private static let epochMilliseconds: Double = 1_577_836_800_000
    private static let timeLimit: UInt64 = 2_821_109_907_456  // 36^8

    /// One random word for the last 4 characters: a getrandom per character was a system call
    /// per character. A clock before 2020 or past 2109 is held at the range's end: the id is
    /// still free (the caller checks), only out of order.
    static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000 - epochMilliseconds).rounded(.down)
        var time = milliseconds.isFinite && milliseconds > 0 ? UInt64(min(milliseconds, Double(timeLimit - 1))) : 0
        var word = UInt64.random(in: 0..<(1 << 63), using: &generator)
        var id = [UInt8](repeating: 0, count: 12)
        for position in (0..<8).reversed() {
            id[position] = alphabet[Int(time % 36)]
            time /= 36
        }
        for position in 8..<12 {
            id[position] = alphabet[Int(word % 36)]
            word /= 36
        }
        return String(decoding: id, as: UTF8.self)
    }
}
