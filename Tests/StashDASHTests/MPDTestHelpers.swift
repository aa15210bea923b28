import StashDASH
import XCTest

/// The URL the test MPDs are read as fetched from.
let mpdURL = "https://cdn.example.com/vod/show/manifest.mpd"

func parseMPD(_ text: String, url: String = mpdURL) throws -> MPD {
    try MPD.parse(Array(text.utf8), url: url)
}

/// Asserts that `text` is refused with `code` and a message containing `fragment`.
func assertRefused(_ text: String, _ code: DASHError.Code, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try parseMPD(text), file: file, line: line) { error in
        guard let error = error as? DASHError else { return XCTFail("\(error) is not a DASHError", file: file, line: line) }
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains(fragment), "'\(error.message)' does not say '\(fragment)'", file: file, line: line)
    }
}

/// A static MPD of one period around `body` (the period's content).
func staticMPD(_ body: String, duration: String = "PT10S") -> String {
    """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="\(duration)" minBufferTime="PT2S"
         profiles="urn:mpeg:dash:profile:isoff-live:2011">
      <Period id="0">
    \(body)
      </Period>
    </MPD>
    """
}

/// A video adaptation set of one representation with `template` as its SegmentTemplate.
func templateMPD(_ template: String, duration: String = "PT10S") -> String {
    staticMPD("""
        <AdaptationSet contentType="video" mimeType="video/mp4">
          <Representation id="v0" bandwidth="800000" width="640" height="360" codecs="avc1.64001e">
            \(template)
          </Representation>
        </AdaptationSet>
        """, duration: duration)
}

extension MPD {
    /// The expanded segments of the representation with `id`.
    func segments(of id: String) throws -> SegmentList {
        for period in periods {
            for set in period.adaptationSets {
                for representation in set.representations where representation.id == id {
                    switch representation.addressing {
                    case .template(let template): return try template.segments()
                    case .list(let list): return list
                    case .base: throw DASHError(.noSegments, "\(id) is a SegmentBase")
                    }
                }
            }
        }
        throw DASHError(.noSegments, "no representation \(id)")
    }
}
