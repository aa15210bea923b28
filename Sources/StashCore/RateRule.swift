/// One rule of a `RateSchedule`: on these weekdays, from `start` to `end` (minutes of the local
/// day), the global rate limit is `rate` (0 = unlimited). A rule whose end is before its start
/// runs past midnight into the next day; its days name the day it starts.
package struct RateRule: Equatable, Sendable {
    /// Bit 0 is Monday, bit 6 Sunday.
    package var days: UInt8
    /// Minutes since local midnight, 0..<1440.
    package var start: Int
    /// Minutes since local midnight, 1...1440 (24:00 is the end of the day).
    package var end: Int
    package var rate: Int64

    package var crossesMidnight: Bool { end <= start }

    /// Whether the rule covers minute `minute` of a local day that is weekday `weekday` (0 = Monday).
    func covers(weekday: Int, minute: Int) -> Bool {
        let today = days & (1 << weekday) != 0
        let yesterday = days & (1 << ((weekday + 6) % 7)) != 0
        if crossesMidnight {
            return (today && minute >= start) || (yesterday && minute < end)
        }
        return today && minute >= start && minute < end
    }
}
