@testable import stash
import StashClient
import XCTest

/// How the command line shows an HLS download's time range.
final class TimeRangeFormatTests: XCTestCase {
    func testPositionsShowMinutesSecondsAndUpToThreeDecimals() {
        XCTAssertEqual(Format.position(0), "0:00")
        XCTAssertEqual(Format.position(75), "1:15")
        XCTAssertEqual(Format.position(90.5), "1:30.5")
        XCTAssertEqual(Format.position(3723.25), "1:02:03.25")
        XCTAssertEqual(Format.position(60.0004), "1:00", "below a millisecond")
        XCTAssertEqual(Format.position(1.0005), "0:01.001")
        XCTAssertEqual(Format.position(599.999_9), "10:00")
        XCTAssertEqual(Format.position(.nan), "nan s", "what no stream has is shown as it is, never trapped on")
        XCTAssertEqual(Format.position(-1), "-1.0 s")
        XCTAssertEqual(Format.position(1e308), "1e+308 s")
    }

    func testRangesSayWhereAnOpenEndIs() {
        XCTAssertEqual(Format.range(start: 60, end: 120), "1:00-2:00")
        XCTAssertEqual(Format.range(start: 590, end: nil), "9:50-end")
        XCTAssertEqual(Format.range(start: nil, end: 30.5), "start-0:30.5")
    }

    func testShowAndTheJSONRecordCarryTheRange() {
        let options = HLSOptions(quality: .low, start: 60, end: 120.5)
        XCTAssertTrue(options.summary.hasSuffix(", time range 1:00-2:00.5"), options.summary)
        XCTAssertEqual(options.record["start"] as? Double, 60)
        XCTAssertEqual(options.record["end"] as? Double, 120.5)
        XCTAssertFalse(HLSOptions().summary.contains("time range"))
        XCTAssertNil(HLSOptions().record["start"], "absent, not null, for the whole stream")

        var download = Download(id: "clip", uri: "https://example.org/master.m3u8", title: "Film", assetPath: "/a/clip", hls: options)
        XCTAssertEqual(ListCommand.label(download), "Film [1:00-2:00.5]")
        download.hls = HLSOptions()
        XCTAssertEqual(ListCommand.label(download), "Film")
    }
}
