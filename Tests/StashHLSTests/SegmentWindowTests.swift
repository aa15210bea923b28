import StashCore
import XCTest
@testable import StashHLS

/// Which segments a time range keeps, and how a range is checked against a stream.
final class SegmentWindowTests: XCTestCase {
    let twoSeconds = [Double](repeating: 2, count: 10)

    func kept(_ durations: [Double], _ start: Double, _ end: Double) -> Range<Int> {
        SegmentWindow.segments(durations, start: start, end: end)
    }

    func testExactSegmentEdges() {
        // Segment 2 is [4, 6): a window from 4 starts with it, and segment 1, which ends at 4,
        // is not in it; segment 4 begins at 8, where the window ends, and is not in it.
        XCTAssertEqual(kept(twoSeconds, 4, 8), 2..<4)
        XCTAssertEqual(kept(twoSeconds, 0, 20), 0..<10)
        XCTAssertEqual(kept(twoSeconds, 0, 2), 0..<1)
        XCTAssertEqual(kept(twoSeconds, 18, 20), 9..<10)
        // A hair either side of an edge takes the neighbour.
        XCTAssertEqual(kept(twoSeconds, 3.999_999, 8.000_001), 1..<5)
    }

    func testWindowInsideOneSegment() {
        XCTAssertEqual(kept(twoSeconds, 4.5, 5), 2..<3)
        XCTAssertEqual(kept(twoSeconds, 4, 4.000_001), 2..<3)
        XCTAssertEqual(kept(twoSeconds, 19.5, 19.75), 9..<10)
    }

    func testEmptyWindows() {
        XCTAssertEqual(kept(twoSeconds, 20, 30), 10..<10, "from the end of the stream on, nothing")
        XCTAssertEqual(kept(twoSeconds, 25, .infinity), 10..<10)
        XCTAssertEqual(kept(twoSeconds, 6, 6), 3..<3, "an empty range keeps nothing")
        XCTAssertEqual(kept([], 0, 10), 0..<0)
    }

    func testOpenEndsKeepTheRest() {
        XCTAssertEqual(kept(twoSeconds, 0, .infinity), 0..<10)
        XCTAssertEqual(kept(twoSeconds, 11, .infinity), 5..<10)
        XCTAssertEqual(kept(twoSeconds, 0, 1e308), 0..<10)
    }

    func testFractionalDurationsAreSummedInMicroseconds() {
        // In floating point 0.1 + 0.1 + 0.1 is 0.30000000000000004: summed that way, segment 2
        // would end just after 0.3 and be kept by a window starting at 0.3.
        let tenths = [Double](repeating: 0.1, count: 30)
        XCTAssertGreaterThan(tenths[0..<3].reduce(0, +), 0.3)
        XCTAssertEqual(kept(tenths, 0.3, 0.6), 3..<6)
        // NTSC-style 2.002 s segments: segment 3 begins at exactly 6.006 s, where a float sum
        // (6.005999999999999) would have it begin inside a window ending at 6.006.
        let ntsc = [Double](repeating: 2.002, count: 150)
        XCTAssertLessThan(ntsc[0..<3].reduce(0, +), 6.006, "the drift the microseconds avoid")
        XCTAssertEqual(kept(ntsc, 0, 6.006), 0..<3)
        XCTAssertEqual(kept(ntsc, 6.006, 300.3), 3..<150)
        XCTAssertEqual(try SegmentWindow(start: nil, end: 400, durations: ntsc).end, 300.3, "a clamped end is the duration as written")
    }

    func testZeroDurationSegmentsInsideTheWindowAreKept() {
        let durations: [Double] = [2, 0, 2]
        XCTAssertEqual(kept(durations, 2, 4), 1..<3, "the empty segment at 2 is in [2, 4)")
        XCTAssertEqual(kept(durations, 0, 2), 0..<1, "nor is it in [0, 2): it begins at the end")
        XCTAssertEqual(kept([0, 0, 2], 0, 1), 0..<3)
    }

    func testHostileValuesNeverTrap() {
        XCTAssertTrue(kept(twoSeconds, .nan, 10).isEmpty)
        XCTAssertEqual(kept(twoSeconds, -5, 3), 0..<2, "a negative start is the beginning")
        XCTAssertEqual(kept(twoSeconds, 0, .nan), 0..<10, "an end that is not a number is no end")
        XCTAssertEqual(kept(twoSeconds, -.infinity, -1), 0..<0)
        XCTAssertEqual(kept([1e300, 1e300, 1], 0, 1e308), 0..<1, "sums saturate: nothing begins after the largest time")
        XCTAssertEqual(kept([.nan, 2], 0, 1), 0..<1)
    }

    func testResolvingAgainstTheStream() throws {
        let window = try SegmentWindow(start: 60, end: 120, durations: [Double](repeating: 2, count: 300))
        XCTAssertEqual(window, SegmentWindow(start: 60, end: 120))
        XCTAssertEqual(try SegmentWindow(start: nil, end: nil, durations: twoSeconds), SegmentWindow(start: 0, end: 20))
        XCTAssertEqual(try SegmentWindow(start: 5, end: nil, durations: twoSeconds), SegmentWindow(start: 5, end: 20))
        XCTAssertEqual(try SegmentWindow(start: nil, end: 20, durations: twoSeconds), SegmentWindow(start: 0, end: 20),
                       "an end at the duration is not past it")
        XCTAssertEqual(try SegmentWindow(start: 10, end: 700, durations: twoSeconds), SegmentWindow(start: 10, end: 20, clampedFrom: 700))
        XCTAssertEqual(try SegmentWindow(start: 1, end: 25.5, duration: 20).clampedFrom, 25.5)
    }

    func testRangesOutsideTheStreamAreRefusedNamingValueAndDuration() {
        let cases: [(Double?, Double?, [String])] = [
            (20, nil, ["hls.start 20", "at or past the end", "20 s"]),
            (590, 600, ["hls.start 590", "20 s"]),
            (-1, nil, ["hls.start -1", "not a time", "20 s"]),
            (nil, -0.5, ["hls.end -0.5", "20 s"]),
            (.nan, nil, ["hls.start nan", "20 s"]),
            (nil, .infinity, ["hls.end inf", "20 s"]),
            (nil, 1e308, ["hls.end 1e+308", "20 s"]),
            (8, 8, ["hls.end 8 must be after hls.start 8", "20 s"]),
            (8, 4, ["hls.end 4 must be after hls.start 8"]),
            (nil, 0, ["hls.end 0 must be after hls.start 0"]),
        ]
        for (start, end, mentions) in cases {
            XCTAssertThrowsError(try SegmentWindow(start: start, end: end, durations: twoSeconds), "\(String(describing: start)) \(String(describing: end))") { error in
                let error = error as? HLSError
                XCTAssertEqual(error?.code, .outOfRange)
                for mention in mentions {
                    XCTAssertTrue(error?.message.contains(mention) ?? false, "'\(error?.message ?? "")' does not mention '\(mention)'")
                }
            }
        }
        XCTAssertThrowsError(try SegmentWindow(start: 0, end: 1, durations: []), "a stream of no time has no part")
    }

    func testTheAddTimeLimitCoversEveryStream() {
        XCTAssertEqual(HLSRules.maxRangeSeconds, Double(HLSError.maxSegments) * HLSError.maxDurationSeconds)
        XCTAssertLessThan(SegmentWindow.microseconds(HLSRules.maxRangeSeconds), Int64.max / 1000, "far inside the arithmetic")
    }
}
