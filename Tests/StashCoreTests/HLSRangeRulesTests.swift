import XCTest
import StashCore

/// What an add checks of a time range before the stream's duration is known.
final class HLSRangeRulesTests: XCTestCase {
    func refusal(_ start: Double?, _ end: Double?) -> String? {
        do {
            try HLSRules.validate(HLSOptions(start: start, end: end))
            return nil
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testRangesThatCanBePartOfAStreamPass() {
        for (start, end) in [(nil, nil), (60, 120), (0, 0.001), (nil, 1), (590, nil), (0, HLSRules.maxRangeSeconds), (-0.0, 5)]
            as [(Double?, Double?)] {
            XCTAssertNil(refusal(start, end), "\(String(describing: start)) to \(String(describing: end))")
        }
    }

    func testEachBadValueIsNamedWithTheLimit() {
        let cases: [(Double?, Double?, String)] = [
            (-1, nil, "hls.start -1 is not a time in the stream: it must be a number of seconds from 0 to 8640000000"),
            (nil, -0.5, "hls.end -0.5 is not a time"),
            (.nan, nil, "hls.start nan is not a time"),
            (nil, .infinity, "hls.end inf is not a time"),
            (-.infinity, 3, "hls.start -inf is not a time"),
            (nil, 1e308, "hls.end 1e+308 is not a time"),
            (8_640_000_000.5, nil, "hls.start 8640000000.5 is not a time"),
            (120, 60, "hls.end 60 must be after hls.start 120"),
            (60, 60, "hls.end 60 must be after hls.start 60"),
            (nil, 0, "hls.end 0 must be after hls.start 0"),
        ]
        for (start, end, expected) in cases {
            let message = refusal(start, end)
            XCTAssertTrue(message?.hasPrefix(expected) ?? false, "\(String(describing: message)) should start with \(expected)")
        }
    }

    func testOldRecordsWithoutARangeDecode() throws {
        // The registry stores HLSOptions as JSON; a record written before ranges has no keys for them.
        let old = #"{"quality":"medium","subtitles":["en"],"audio":[],"segmentConcurrency":8}"#
        let options = try JSONDecoder().decode(HLSOptions.self, from: Data(old.utf8))
        XCTAssertEqual(options, HLSOptions(quality: .medium, subtitles: ["en"]))
        XCTAssertFalse(options.hasRange)
        let ranged = HLSOptions(start: 60.5, end: 120)
        XCTAssertEqual(try JSONDecoder().decode(HLSOptions.self, from: JSONEncoder().encode(ranged)), ranged)
    }
}
