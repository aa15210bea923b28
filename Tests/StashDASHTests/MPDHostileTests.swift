import Foundation
import StashDASH
import XCTest

/// MPDs a hostile or broken server could send: each is refused with the error that names what
/// is wrong, and none traps or takes long.
final class MPDHostileTests: XCTestCase {
    func testBillionLaughsIsRefusedAtItsDocumentTypeDeclaration() {
        var entities = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let started = Date()
        assertRefused("""
            <?xml version="1.0"?>
            <!DOCTYPE MPD [\(entities)]>
            <MPD type="static" mediaPresentationDuration="PT1S"><Period><AdaptationSet lang="&lol9;"/></Period></MPD>
            """, .notXML, "document type declaration")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        // Past the check of the prolog (a comment with a start tag in it), the reader refuses it.
        assertRefused("""
            <?xml version="1.0"?><!-- <MPD> --><!DOCTYPE MPD [\(entities)]>
            <MPD type="static" mediaPresentationDuration="PT1S"><Period><AdaptationSet lang="&lol9;"/></Period></MPD>
            """, .notXML, "line 2")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testExternalEntitiesAreNeitherLoadedNorExpanded() {
        assertRefused("""
            <?xml version="1.0"?>
            <!DOCTYPE MPD [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <MPD type="static"><BaseURL>&secret;</BaseURL></MPD>
            """, .notXML, "document type declaration")
        // Without a declaration an entity reference is an error of the XML, not a lookup.
        assertRefused("<MPD type=\"static\"><BaseURL>&secret;</BaseURL></MPD>", .notXML, "secret")
    }

    func testDeepNestingIsRefusedOrSkippedWithoutRecursion() {
        let depth = 100_000
        let text = "<MPD type=\"static\" mediaPresentationDuration=\"PT1S\"><Period>" + String(repeating: "<x>", count: depth)
            + String(repeating: "</x>", count: depth) + "</Period></MPD>"
        XCTAssertThrowsError(try parseMPD(text)) { error in
            XCTAssertEqual((error as? DASHError)?.code, .notXML, "\(error)")
        }
    }

    func testDynamicAndRemoteAndOtherDocumentsAreRefusedByName() {
        assertRefused("<MPD type=\"dynamic\" availabilityStartTime=\"2024-01-01T00:00:00Z\"><Period/></MPD>", .unsupported, "dynamic")
        assertRefused("<MPD type=\"sometimes\"/>", .invalidAttribute, "sometimes")
        assertRefused("<html><body/></html>", .notMPD, "<html>")
        assertRefused("#EXTM3U\n#EXT-X-ENDLIST\n", .notXML, "line 1")
        assertRefused("", .notXML, "empty")
        assertRefused("<MPD type=\"static\"/>", .noSegments, "no Period")
        assertRefused("""
            <MPD xmlns:xlink="http://www.w3.org/1999/xlink" type="static"><Period xlink:href="https://x.example/p.xml"/></MPD>
            """, .unsupported, "xlink")
        XCTAssertThrowsError(try MPD.parse(Array(repeating: 0x20, count: DASHError.maxMPDBytes + 1), url: mpdURL)) { error in
            XCTAssertEqual((error as? DASHError)?.code, .tooLarge)
        }
    }

    func testHostileNumbersAreRefusedNamingTheAttribute() {
        let timeline = { (s: String) in templateMPD("<SegmentTemplate media=\"$Number$.m4s\"><SegmentTimeline>\(s)</SegmentTimeline></SegmentTemplate>") }
        assertRefused(timeline("<S d=\"1\" r=\"9999999999\"/>"), .tooMany, "100000")
        assertRefused(timeline("<S d=\"1\" r=\"99999999999999999999999\"/>"), .invalidAttribute, "@r")
        assertRefused(timeline("<S d=\"1e308\"/>"), .invalidAttribute, "@d '1e308'")
        assertRefused(timeline("<S d=\"0\"/>"), .invalidDuration, "@d above 0")
        assertRefused(timeline("<S d=\"-5\"/>"), .invalidAttribute, "@d '-5'")
        assertRefused(timeline("<S t=\"18446744073709551615\" d=\"2\"/>"), .invalidDuration, "ends past")
        assertRefused(timeline("<S t=\"0\" d=\"1\" r=\"-1\"/><S d=\"1\"/>"), .invalidAttribute, "no @t")
        assertRefused(timeline("<S t=\"900\" d=\"1\" r=\"-1\"/>"), .invalidDuration, "at or past")
        // A 1-tick segment repeated to the end of a week-long period at the largest timescale.
        assertRefused(templateMPD("""
            <SegmentTemplate timescale="4294967295" media="$Time$.m4s"><SegmentTimeline><S d="1" r="-1"/></SegmentTimeline></SegmentTemplate>
            """, duration: "P7D"), .tooMany, "limit")
        assertRefused(templateMPD("<SegmentTemplate timescale=\"0\" duration=\"1\" media=\"$Number$.m4s\"/>"), .invalidAttribute, "@timescale is 0")
        assertRefused(templateMPD("<SegmentTemplate timescale=\"4294967296\" duration=\"1\" media=\"$Number$.m4s\"/>"), .invalidAttribute, "@timescale")
        assertRefused(templateMPD("<SegmentTemplate duration=\"0\" media=\"$Number$.m4s\"/>"), .invalidDuration, "@duration is 0")
        assertRefused(templateMPD("<SegmentTemplate timescale=\"1000\" duration=\"1\" media=\"$Number$.m4s\"/>", duration: "PT1000S"), .tooMany, "limit")
        assertRefused(templateMPD("<SegmentTemplate startNumber=\"18446744073709551615\" duration=\"2\" media=\"$Number$.m4s\"/>"), .invalidAttribute, "@startNumber")
        assertRefused(templateMPD("<SegmentTemplate duration=\"2\" media=\"$Number$.m4s\"/>", duration: "-PT10S"), .invalidDuration, "-PT10S")
        assertRefused(templateMPD("<SegmentTemplate duration=\"2\" media=\"$Number$.m4s\"/>", duration: "PT1e308S"), .invalidDuration, "ISO 8601")
        assertRefused(templateMPD("<SegmentTemplate duration=\"2\" media=\"$Number$.m4s\"/>", duration: "P400D"), .invalidDuration, "limit")
        assertRefused(staticMPD("<AdaptationSet><Representation id=\"a\" bandwidth=\"-1\"/></AdaptationSet>"), .invalidAttribute, "@bandwidth '-1'")
        assertRefused(staticMPD("<AdaptationSet><Representation id=\"a\" bandwidth=\"1\" width=\"99999999\"/></AdaptationSet>"), .invalidAttribute, "@width")
        assertRefused(staticMPD("<AdaptationSet><Representation id=\"a\" bandwidth=\"1\" frameRate=\"25/0\"/></AdaptationSet>"), .invalidAttribute, "@frameRate")
        assertRefused(staticMPD("<AdaptationSet><Representation bandwidth=\"1\"/></AdaptationSet>"), .invalidAttribute, "no @id")
        assertRefused(templateMPD("<SegmentList><SegmentURL mediaRange=\"9-1\"/></SegmentList>"), .invalidByteRange, "9-1")
        assertRefused(templateMPD("<SegmentList><SegmentURL mediaRange=\"0-9223372036854775807\"/></SegmentList>"), .invalidByteRange, "mediaRange")
    }

    func testTemplatesOutsideTheStandardAreRefused() {
        let template = { (media: String) in templateMPD("<SegmentTemplate duration=\"2\" media=\"\(media)\"/>") }
        assertRefused(template("$Foo$.m4s"), .invalidTemplate, "$Foo$")
        assertRefused(template("$Number.m4s"), .invalidTemplate, "not closed")
        assertRefused(template("$Number%0999d$.m4s"), .invalidTemplate, "width up to 32")
        assertRefused(template("$Number%05x$.m4s"), .invalidTemplate, "%05x")
        assertRefused(template("$RepresentationID%05d$.m4s"), .invalidTemplate, "RepresentationID")
        assertRefused(template("$SubNumber$.m4s"), .unsupported, "SubNumber")
        assertRefused(templateMPD("<SegmentTemplate duration=\"2\" media=\"a.m4s\" initialization=\"$Number$.mp4\"/>"), .invalidTemplate, "initialization")
        assertRefused(templateMPD("<SegmentTemplate media=\"$Number$.m4s\"/>"), .noSegments, "neither @duration nor a SegmentTimeline")
    }

    func testURLsThatLeaveHTTPAreRefused() {
        assertRefused(templateMPD("<BaseURL>file:///etc/</BaseURL><SegmentTemplate duration=\"2\" media=\"$Number$\"/>"), .invalidURI, "file:///etc/")
        assertRefused(templateMPD("<SegmentList duration=\"2\"><SegmentURL media=\"javascript:alert(1)\"/></SegmentList>"), .invalidURI, "javascript")
        XCTAssertThrowsError(try parseMPD(templateMPD("<SegmentTemplate duration=\"2\" media=\"$Number$\"/>"), url: "file:///tmp/a.mpd"))
    }

    /// The reader stops keeping elements at its bound, before their memory adds up: 400,001
    /// one-segment S elements are refused for their number, not read into 400,001 segments.
    func testElementsPastTheBoundAreRefused() {
        let entries = String(repeating: "<S d=\"1\"/>", count: 400_001)
        assertRefused(templateMPD("<SegmentTemplate media=\"$Number$\"><SegmentTimeline>\(entries)</SegmentTimeline></SegmentTemplate>"),
                      .tooMany, "more than 400000 elements")
    }

    func testLimitsOnPeriodsAndRepresentations() {
        let period = "<Period duration=\"PT1S\"/>"
        assertRefused("<MPD type=\"static\">" + String(repeating: period, count: DASHError.maxPeriods + 1) + "</MPD>", .tooMany, "periods")
        let representation = "<Representation id=\"r\" bandwidth=\"1\"/>"
        assertRefused(staticMPD("<AdaptationSet>" + String(repeating: representation, count: DASHError.maxRepresentations + 1) + "</AdaptationSet>"),
                      .tooMany, "representations")
    }
}
