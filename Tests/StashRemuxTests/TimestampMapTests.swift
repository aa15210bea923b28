import XCTest

@testable import StashRemux

final class TimestampMapTests: XCTestCase {
    private func offset(_ header: String) throws -> Int64 {
        try TimestampMap.offset(of: Array((header + "\n\n00:00.000 --> 00:01.000\nhi\n").utf8), name: "test.vtt")
    }

    func testTheMapMovesCuesOntoTheMediaClock() throws {
        XCTAssertEqual(try offset("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000"), 1_400_000)
        XCTAssertEqual(try offset("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:10.000,MPEGTS:900000"), 0)
        XCTAssertEqual(try offset("WEBVTT\r\nX-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00.500"), 500_000)
        XCTAssertEqual(try offset("WEBVTT"), 0, "without a map, cue time 0 is MPEG time 0")
        // A map below the header's end is a cue's text, not a map.
        XCTAssertEqual(try TimestampMap.offset(of: Array("WEBVTT\n\nX-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00.000\n".utf8), name: "t"), 0)
    }

    func testABadMapNamesTheValue() {
        let cases = [
            ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:99999999999,LOCAL:00:00:00.000", "MPEGTS '99999999999'"),
            ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:-5,LOCAL:00:00:00.000", "MPEGTS '-5'"),
            ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:61:00.000", "LOCAL '00:61:00.000'"),
            ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0", "needs both"),
        ]
        for (header, expected) in cases {
            XCTAssertThrowsError(try offset(header), header) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue("\(error)".contains("test.vtt"), "\(error)")
            }
        }
    }

    func testCueTimes() {
        XCTAssertEqual(TimestampMap.cueTime("00:01.250"), 1_250_000)
        XCTAssertEqual(TimestampMap.cueTime("01:00:00.000"), 3_600_000_000)
        XCTAssertEqual(TimestampMap.cueTime("123:00:00.001"), 442_800_001_000)
        for bad in ["", "1.000", "00:1.000", "00:00.00", "00:60.000", "aa:00.000", "00:00:00:00.000", "1234567890:00:00.000", "00:00.0001"] {
            XCTAssertNil(TimestampMap.cueTime(bad), bad)
        }
    }

    func testLanguageCodes() {
        XCTAssertEqual(LanguageCode.iso639Part2("en", bibliographic: false), "eng")
        XCTAssertEqual(LanguageCode.iso639Part2("es-419", bibliographic: true), "spa")
        XCTAssertEqual(LanguageCode.iso639Part2("fr", bibliographic: false), "fra")
        XCTAssertEqual(LanguageCode.iso639Part2("fr-CA", bibliographic: true), "fre")
        XCTAssertEqual(LanguageCode.iso639Part2("ger", bibliographic: false), "deu")
        XCTAssertEqual(LanguageCode.iso639Part2(nil, bibliographic: false), "und")
        XCTAssertEqual(LanguageCode.iso639Part2("x-klingon", bibliographic: false), "und")
        XCTAssertEqual(LanguageCode.iso639Part2("qq", bibliographic: false), "und")
    }
}
