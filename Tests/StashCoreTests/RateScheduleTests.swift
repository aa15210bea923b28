import Foundation
import StashCore
import XCTest

/// The rate schedule's syntax and its reading in local time: rules across midnight, rules that
/// overlap, the hours a DST change skips or repeats, the empty schedule, and the errors.
final class RateScheduleTests: XCTestCase {
    private let utc = TimeZone(identifier: "UTC")!
    private let berlin = TimeZone(identifier: "Europe/Berlin")!
    private let otherwise: Int64 = 7

    private func at(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    private func limit(_ schedule: RateSchedule, _ text: String, in zone: TimeZone? = nil) -> Int64 {
        schedule.limit(at: at(text), in: zone ?? utc, otherwise: otherwise)
    }

    private func next(_ schedule: RateSchedule, _ text: String, in zone: TimeZone? = nil) -> (Date, Int64)? {
        schedule.nextChange(after: at(text), in: zone ?? utc, otherwise: otherwise).map { ($0.at, $0.limit) }
    }

    func testTheDocumentedExampleHoldsOnWeekdaysAndAtWeekends() throws {
        let schedule = try RateSchedule(parsing: "Mon-Fri 09:00-18:00 1M; Sat,Sun 00:00-24:00 0")
        XCTAssertEqual(schedule.text, "Mon,Tue,Wed,Thu,Fri 09:00-18:00 1M; Sat,Sun 00:00-24:00 0")
        // 2024-01-01 was a Monday.
        XCTAssertEqual(limit(schedule, "2024-01-01T08:59:00Z"), otherwise)
        XCTAssertEqual(limit(schedule, "2024-01-01T09:00:00Z"), 1 << 20)
        XCTAssertEqual(limit(schedule, "2024-01-05T17:59:59Z"), 1 << 20)
        XCTAssertEqual(limit(schedule, "2024-01-05T18:00:00Z"), otherwise)
        XCTAssertEqual(limit(schedule, "2024-01-06T12:00:00Z"), 0, "Saturday: unlimited")
        let change = try XCTUnwrap(next(schedule, "2024-01-05T18:00:00Z"))
        XCTAssertEqual(change.0, at("2024-01-06T00:00:00Z"))
        XCTAssertEqual(change.1, 0)
        let monday = try XCTUnwrap(next(schedule, "2024-01-06T00:00:00Z"))
        XCTAssertEqual(monday.0, at("2024-01-08T00:00:00Z"), "Saturday to Sunday at midnight is no change; Sunday's end is")
        XCTAssertEqual(monday.1, otherwise)
        let work = try XCTUnwrap(next(schedule, "2024-01-08T00:00:00Z"))
        XCTAssertEqual(work.0, at("2024-01-08T09:00:00Z"))
        XCTAssertEqual(work.1, 1 << 20)
    }

    func testARuleEndingBeforeItStartsRunsPastMidnightFromItsDay() throws {
        let schedule = try RateSchedule(parsing: "Fri 22:00-06:00 500K; sun 23:00-01:00 1")
        XCTAssertEqual(limit(schedule, "2024-01-05T23:00:00Z"), 500 << 10)
        XCTAssertEqual(limit(schedule, "2024-01-06T05:59:00Z"), 500 << 10, "Saturday morning belongs to Friday's rule")
        XCTAssertEqual(limit(schedule, "2024-01-06T06:00:00Z"), otherwise)
        XCTAssertEqual(limit(schedule, "2024-01-05T05:00:00Z"), otherwise, "Friday morning is Thursday night's, which has no rule")
        XCTAssertEqual(limit(schedule, "2024-01-08T00:30:00Z"), 1, "Sunday's rule wraps into Monday")
        let start = try XCTUnwrap(next(schedule, "2024-01-05T12:00:00Z"))
        XCTAssertEqual(start.0, at("2024-01-05T22:00:00Z"))
        let end = try XCTUnwrap(next(schedule, "2024-01-05T23:00:00Z"))
        XCTAssertEqual(end.0, at("2024-01-06T06:00:00Z"))
        XCTAssertEqual(end.1, otherwise)
    }

    func testWhereRulesOverlapTheLastGivenWins() throws {
        let exception = try RateSchedule(parsing: "Mon-Fri 00:00-24:00 1M; Wed 12:00-13:00 0")
        XCTAssertEqual(limit(exception, "2024-01-03T12:30:00Z"), 0)
        XCTAssertEqual(limit(exception, "2024-01-03T11:00:00Z"), 1 << 20)
        let change = try XCTUnwrap(next(exception, "2024-01-03T11:00:00Z"))
        XCTAssertEqual(change.0, at("2024-01-03T12:00:00Z"))
        XCTAssertEqual(change.1, 0)
        let hidden = try RateSchedule(parsing: "Wed 12:00-13:00 0; Mon-Fri 00:00-24:00 1M")
        XCTAssertEqual(limit(hidden, "2024-01-03T12:30:00Z"), 1 << 20, "the later rule covers the earlier one")
        let end = try XCTUnwrap(next(hidden, "2024-01-03T11:00:00Z"))
        XCTAssertEqual(end.0, at("2024-01-06T00:00:00Z"), "the hidden rule is no change; Saturday is")
    }

    func testTheHourDSTSkipsStartsARuleWhenTheClockResumes() throws {
        // Berlin, 2024-03-31: 02:00 CET is 03:00 CEST (01:00 UTC); 02:30 does not exist.
        let skipped = try RateSchedule(parsing: "Sun 02:30-04:00 100K")
        let start = try XCTUnwrap(next(skipped, "2024-03-31T00:00:00Z", in: berlin))
        XCTAssertEqual(start.0, at("2024-03-31T01:00:00Z"), "at the change itself, 03:00 CEST")
        XCTAssertEqual(start.1, 100 << 10)
        let end = try XCTUnwrap(next(skipped, "2024-03-31T01:00:00Z", in: berlin))
        XCTAssertEqual(end.0, at("2024-03-31T02:00:00Z"), "04:00 CEST")
        let daily = try RateSchedule(parsing: "Mon-Sun 09:00-18:00 1M")
        let sunday = try XCTUnwrap(next(daily, "2024-03-30T17:00:00Z", in: berlin))
        XCTAssertEqual(sunday.0, at("2024-03-31T07:00:00Z"), "09:00 in summer time, an hour earlier in UTC than the day before")
    }

    func testTheHourDSTRepeatsHoldsARuleBothTimes() throws {
        // Berlin, 2024-10-27: 03:00 CEST is 02:00 CET (01:00 UTC); 02:15 happens twice.
        let schedule = try RateSchedule(parsing: "Sun 02:15-02:45 100K")
        XCTAssertEqual(limit(schedule, "2024-10-27T00:30:00Z", in: berlin), 100 << 10, "02:30 CEST")
        XCTAssertEqual(limit(schedule, "2024-10-27T01:30:00Z", in: berlin), 100 << 10, "02:30 CET")
        XCTAssertEqual(try XCTUnwrap(next(schedule, "2024-10-27T00:00:00Z", in: berlin)).0, at("2024-10-27T00:15:00Z"))
        XCTAssertEqual(try XCTUnwrap(next(schedule, "2024-10-27T00:20:00Z", in: berlin)).0, at("2024-10-27T00:45:00Z"))
        let again = try XCTUnwrap(next(schedule, "2024-10-27T00:50:00Z", in: berlin))
        XCTAssertEqual(again.0, at("2024-10-27T01:15:00Z"), "the repeated 02:15")
        XCTAssertEqual(again.1, 100 << 10)
    }

    func testAnEmptyScheduleHoldsTheSettingAndNeverChanges() throws {
        for text in ["", "   ", " ; ;"] {
            let schedule = try RateSchedule(parsing: text)
            XCTAssertTrue(schedule.rules.isEmpty)
            XCTAssertEqual(limit(schedule, "2024-01-03T12:00:00Z"), otherwise)
            XCTAssertNil(next(schedule, "2024-01-03T12:00:00Z"))
        }
        let always = try RateSchedule(parsing: "Mon-Sun 00:00-24:00 1M")
        XCTAssertNil(next(always, "2024-01-03T12:00:00Z"), "a rule that always holds is never a change")
    }

    func testErrorsNameTheRuleAndWhatCannotBeRead() {
        let cases: [(String, [String])] = [
            ("Mon-Fri 9:00-18:00 1M", ["rule 1", "9:00-18:00", "HH:MM-HH:MM"]),
            ("Mon-Fry 09:00-18:00 1M", ["Mon-Fry", "Mon Tue Wed"]),
            ("Mon 09:00-18:00 fast", ["'fast'", "500K"]),
            ("Mon 09:00-09:00 1M", ["same time", "00:00-24:00"]),
            ("Mon 09:00-18:00", ["expected DAYS HH:MM-HH:MM RATE"]),
            ("Mon 24:00-01:00 1M", ["24:00-01:00"]),
            ("Mon 09:00-18:60 1M", ["09:00-18:60"]),
            ("Mon 09:00-18:00 1M; Tue 10:00-11:00 -1", ["rule 2", "'-1'"]),
            ("Mon 09:00-18:00 16777216T", ["above the largest rate"]),
            (Array(repeating: "Mon 09:00-10:00 1", count: 65).joined(separator: ";"), ["more than 64 rules"]),
            (String(repeating: " ", count: 5000), ["5000 bytes", "4096"]),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RateSchedule(parsing: text), text) { error in
                for part in expected { XCTAssertTrue("\(error)".contains(part), "\(error) lacks \(part)") }
            }
        }
    }

    func testRatesTakeSuffixesAndTheExtremes() throws {
        XCTAssertEqual(try RateText.parse("500K", field: "f"), 512_000)
        XCTAssertEqual(try RateText.parse("2m", field: "f"), 2 << 20)
        XCTAssertEqual(try RateText.parse("0", field: "f"), 0)
        XCTAssertEqual(try RateText.parse("1", field: "f"), 1)
        XCTAssertEqual(try RateText.parse("9223372036854775807", field: "f"), .max)
        for bad in ["9223372036854775808", "8388608T", "-1", "+5", "1.5M", "", "K", "2 M", "1e6"] {
            XCTAssertThrowsError(try RateText.parse(bad, field: "--rate-limit"), bad) { error in
                XCTAssertTrue("\(error)".contains("--rate-limit") && "\(error)".contains("'\(bad)'"), "\(error)")
            }
        }
        XCTAssertEqual(RateText.format(1 << 20), "1M")
        XCTAssertEqual(RateText.format(1536 << 10), "1536K")
        XCTAssertEqual(RateText.format(1000), "1000")
        XCTAssertEqual(RateText.format(.max), "9223372036854775807")
    }

    func testTheConfigKeepsTheScheduleAsParsed() throws {
        var config = DaemonConfig()
        try config.set("rate-schedule", to: "sat-sun 00:00-24:00 0")
        XCTAssertEqual(config.rateSchedule, "Sat,Sun 00:00-24:00 0")
        XCTAssertEqual(try config.text(forKey: "rate-schedule"), "Sat,Sun 00:00-24:00 0")
        XCTAssertThrowsError(try config.value(forKey: "rate-schedule"))
        XCTAssertThrowsError(try config.set("rate-schedule", to: "weekends 1M")) { error in
            XCTAssertTrue("\(error)".contains("weekends 1M"), "\(error)")
        }
        XCTAssertEqual(config.rateSchedule, "Sat,Sun 00:00-24:00 0", "a bad schedule changes nothing")
        try config.set("rate-schedule", to: "")
        XCTAssertEqual(config.rateSchedule, "")
    }
}
