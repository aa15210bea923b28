import Foundation

/// The global rate limit by weekday and hour, in local time (`stash config set rate-schedule`):
///
///     Mon-Fri 09:00-18:00 1M; Sat,Sun 00:00-24:00 0
///
/// Rules are separated by `;`, each `DAYS HH:MM-HH:MM RATE`. DAYS is a comma list of days
/// (Mon … Sun) and ranges (`Fri-Mon` wraps); an end before the start runs past midnight into
/// the next day; RATE is a `RateText` (0 = unlimited). Where rules overlap the last one given
/// wins; outside every rule the `rate-limit` setting holds. Times are wall-clock times: in the
/// hour a DST change repeats, a rule holds both times; in the hour it skips, a rule starting
/// there starts when the clock resumes.
package struct RateSchedule: Equatable, Sendable {
    package private(set) var rules: [RateRule] = []

    package static let maxRules = 64
    package static let maxLength = 4096
    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// An empty schedule: `rate-limit` holds always.
    package init() {}

    /// Parses the schedule's text; "" is the empty schedule. The error names the rule and
    /// the part of it that cannot be read.
    package init(parsing text: String) throws {
        guard text.utf8.count <= Self.maxLength else {
            throw StashError.invalidArgument("rate-schedule: \(text.utf8.count) bytes, above the limit of \(Self.maxLength)")
        }
        for (index, part) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let words = part.split(whereSeparator: \.isWhitespace)
            if words.isEmpty { continue }
            let label = "rate-schedule rule \(index + 1) '\(part.trimmingWhitespaceSubstring())'"
            guard words.count == 3 else {
                throw StashError.invalidArgument("\(label): expected DAYS HH:MM-HH:MM RATE, e.g. 'Mon-Fri 09:00-18:00 1M'")
            }
            guard rules.count < Self.maxRules else {
                throw StashError.invalidArgument("rate-schedule: more than \(Self.maxRules) rules")
            }
            let days = try Self.days(words[0], label: label)
            let (start, end) = try Self.period(words[1], label: label)
            let rate = try RateText.parse(String(words[2]), field: "\(label): rate")
            rules.append(RateRule(days: days, start: start, end: end, rate: rate))
        }
    }

    /// The limit at `date`: the last rule covering it, or `otherwise`.
    package func limit(at date: Date, in timeZone: TimeZone, otherwise: Int64) -> Int64 {
        let wall = Self.wallSeconds(date, timeZone)
        let day = Self.floorDivide(wall, 86_400)
        let weekday = Int(((day + 3) % 7 + 7) % 7)  // 1970-01-01 was a Thursday.
        let minute = Int((wall - day * 86_400) / 60)
        return rules.last { $0.covers(weekday: weekday, minute: minute) }?.rate ?? otherwise
    }

    /// The first moment after `date` the limit changes, and the limit from then on; nil when
    /// it never does. Looked for in spans of one UTC offset, so a DST change is exact: a
    /// boundary's wall time maps to one moment in each span it occurs in.
    package func nextChange(after date: Date, in timeZone: TimeZone, otherwise: Int64) -> (at: Date, limit: Int64)? {
        guard !rules.isEmpty else { return nil }
        let current = limit(at: date, in: timeZone, otherwise: otherwise)
        var minutes = Set<Int>()
        for rule in rules {
            minutes.insert(rule.start)
            minutes.insert(rule.end % 1440)
        }
        let sortedMinutes = minutes.sorted()
        // A week and a day: a weekly pattern that has not changed by then never will.
        let horizon = date.addingTimeInterval(8 * 86_400)
        var spanStart = date
        while spanStart < horizon {
            let transition = timeZone.nextDaylightSavingTimeTransition(after: spanStart)
            let spanEnd = min(transition ?? horizon, horizon)
            let offset = Int64(timeZone.secondsFromGMT(for: spanStart))
            let first = Int64(spanStart.timeIntervalSince1970.rounded(.down)) + offset
            let last = Int64(spanEnd.timeIntervalSince1970.rounded(.up)) + offset
            var day = Self.floorDivide(first, 86_400)
            while day * 86_400 <= last {
                for minute in sortedMinutes {
                    let at = Date(timeIntervalSince1970: TimeInterval(day * 86_400 + Int64(minute) * 60 - offset))
                    guard at > date, at >= spanStart, at < spanEnd else { continue }
                    let next = limit(at: at, in: timeZone, otherwise: otherwise)
                    if next != current { return (at, next) }
                }
                day += 1
            }
            if let transition, transition < horizon {
                let next = limit(at: transition, in: timeZone, otherwise: otherwise)
                if next != current { return (transition, next) }
            }
            spanStart = spanEnd
        }
        return nil
    }

    /// The text form, one rule after another as parsed (`Mon,Tue 09:00-18:00 1M`).
    package var text: String {
        rules.map { rule in
            let days = (0..<7).filter { rule.days & (1 << $0) != 0 }.map { Self.dayNames[$0].capitalized }.joined(separator: ",")
            return "\(days) \(Self.clock(rule.start))-\(Self.clock(rule.end)) \(RateText.format(rule.rate))"
        }.joined(separator: "; ")
    }

    private static func clock(_ minute: Int) -> String {
        let hours = minute / 60, minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }

    private static func days(_ word: Substring, label: String) throws -> UInt8 {
        var set: UInt8 = 0
        for item in word.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count <= 2, let from = day(ends[0]), let to = day(ends[ends.count - 1]) else {
                throw StashError.invalidArgument("\(label): days '\(item)' are not a day (Mon Tue Wed Thu Fri Sat Sun) or a range of days such as Mon-Fri")
            }
            var index = from
            while true {
                set |= 1 << index
                if index == to { break }
                index = (index + 1) % 7
            }
        }
        return set
    }

    private static func day(_ text: Substring) -> Int? {
        dayNames.firstIndex(of: text.lowercased())
    }

    private static func period(_ word: Substring, label: String) throws -> (Int, Int) {
        let ends = word.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let start = minute(ends[0]), let end = minute(ends[1]), start < 1440 else {
            throw StashError.invalidArgument("\(label): times '\(word)' are not HH:MM-HH:MM between 00:00 and 24:00, e.g. 09:00-18:00 or 22:00-06:00")
        }
        guard start != end else {
            throw StashError.invalidArgument("\(label): times '\(word)' start and end at the same time; a whole day is 00:00-24:00")
        }
        return (start, end == 0 ? 1440 : end)
    }

    private static func minute(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]), minutes < 60, hours < 24 || (hours == 24 && minutes == 0)
        else { return nil }
        return hours * 60 + minutes
    }

    private static func wallSeconds(_ date: Date, _ timeZone: TimeZone) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: date))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

extension Substring {
    func trimmingWhitespaceSubstring() -> Substring {
        var s = self
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
