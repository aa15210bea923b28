import Foundation
import Synchronization

/// The local time a plain log line starts with, as swift-log's `StreamLogHandler` writes it
/// ("2026-11-28T02:58:36+0000"), made once a second and shared by the lines of that second.
/// The time zone is read again (`tzset`) each time the second changes, so a changed
/// /etc/localtime shows within a second, as it did when every line read it.
final class LogTimestamp: Sendable {
    private struct Made {
        var second: time_t
        var text: String
    }

    private let made = Mutex(Made(second: -1, text: ""))

    func now() -> String {
        var second = time(nil)
        if let text = made.withLock({ $0.second == second ? $0.text : nil }) { return text }
        tzset()
        var local = tm()
        var buffer = [CChar](repeating: 0, count: 64)
        let text: String
        if localtime_r(&second, &local) != nil, strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local) > 0 {
            text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            text = "<unknown>"
        }
        made.withLock { $0 = Made(second: second, text: text) }
        return text
    }
}
