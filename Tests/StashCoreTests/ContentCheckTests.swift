import StashCore
import XCTest

/// The verdict on a body: its bytes first, the Content-Type only where the bytes are of no
/// known format; every refusal names the file, what was expected and what came.
final class ContentCheckTests: XCTestCase {
    private let html = Array("<!DOCTYPE html>\n<html><body>Chapter not found</body></html".utf8)
    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]

    private func check(_ expect: String, minSize: Int64 = 0) throws -> ContentCheck {
        ContentCheck(expectation: try ContentExpectation.parse(expect, field: "expect"), minSize: minSize, label: "page.jpg")
    }

    func testAnHTMLPageIsNotAnImageWhateverItsContentTypeSays() throws {
        let image = try check("image")
        XCTAssertEqual(html.count, 58)
        XCTAssertEqual(
            image.refusal(prefix: html, complete: true, contentType: "text/html; charset=utf-8"),
            "page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')")
        XCTAssertEqual(
            image.refusal(prefix: html, complete: true, contentType: "image/jpeg"),
            "page.jpg: expected an image, got image/jpeg whose bytes are text/html (58 bytes starting '<!DOCTYPE html>')",
            "a lying Content-Type does not pass an HTML page")
        XCTAssertNil(image.refusal(prefix: jpeg, complete: true, contentType: "text/html"), "the bytes win over a lying Content-Type")
        XCTAssertNil(image.refusal(prefix: jpeg, complete: true, contentType: nil))
    }

    func testBytesOfNoKnownFormatAreJudgedByTheContentType() throws {
        let unknown: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x99] + Array(repeating: 0x80, count: 11)
        XCTAssertNil(try check("image").refusal(prefix: unknown, complete: true, contentType: "image/x-icon"))
        XCTAssertEqual(
            try check("image").refusal(prefix: unknown, complete: true, contentType: "application/octet-stream"),
            "page.jpg: expected an image, got application/octet-stream with bytes of no known format (16 bytes starting with bytes 00 01 02 03 99 80 80 80)")
        XCTAssertNotNil(try check("image").refusal(prefix: unknown, complete: true, contentType: nil))
        XCTAssertNil(try check("application/pdf").refusal(prefix: unknown, complete: true, contentType: "Application/PDF; q=1"))
        XCTAssertNotNil(try check("text").refusal(prefix: unknown, complete: true, contentType: "text/plain"), "text is known by its bytes alone")
        XCTAssertNotNil(try check("video").refusal(prefix: unknown, complete: true, contentType: "video/mp4"), "an MP4 would show its boxes")
        XCTAssertNotNil(try check("image/png").refusal(prefix: unknown, complete: true, contentType: "image/png"), "a PNG would show its signature")
    }

    func testEmptyAndOneByteBodies() throws {
        XCTAssertEqual(
            try check("image").refusal(prefix: [], complete: true, contentType: "image/jpeg"),
            "page.jpg: expected an image, got image/jpeg whose bytes are text/plain (an empty body)")
        XCTAssertNil(try check("text").refusal(prefix: [], complete: true, contentType: nil), "an empty file is empty text")
        XCTAssertNotNil(try check("image").refusal(prefix: [0xFF], complete: true, contentType: "image/jpeg"))
        XCTAssertNotNil(try check("image").refusal(prefix: [0xFF, 0xD8], complete: true, contentType: "image/jpeg"), "a truncated signature")
        XCTAssertNotNil(try check("audio").refusal(prefix: Array(repeating: 0x80, count: 11), complete: true, contentType: "audio/x-thing"),
                        "no audio file is shorter than 12 bytes, whatever the Content-Type")
        XCTAssertNotNil(try check("video").refusal(prefix: [0x47], complete: true, contentType: "video/mp2t"))
    }

    func testKindsAndMIMETypes() throws {
        let mp4 = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomavc1".utf8)
        XCTAssertNil(try check("video").refusal(prefix: mp4, complete: true, contentType: nil))
        XCTAssertNil(try check("audio").refusal(prefix: mp4, complete: true, contentType: nil), "an MP4 may hold audio alone")
        XCTAssertNotNil(try check("image").refusal(prefix: mp4, complete: true, contentType: nil))
        XCTAssertNil(try check("video/mp4").refusal(prefix: mp4, complete: true, contentType: nil))
        XCTAssertNil(try check("audio/mp4").refusal(prefix: mp4, complete: true, contentType: nil))
        XCTAssertNotNil(try check("image/png").refusal(prefix: jpeg, complete: true, contentType: "image/png"))
        XCTAssertNil(try check("IMAGE/JPEG").refusal(prefix: jpeg, complete: true, contentType: nil))
        XCTAssertNil(try check("text/csv").refusal(prefix: Array("a,b\n1,2\n".utf8), complete: true, contentType: nil))
        XCTAssertNil(try check("application/json").refusal(prefix: Array("{\"a\": 1}".utf8), complete: true, contentType: "application/json"))
        XCTAssertNotNil(try check("application/json").refusal(prefix: Array("{\"a\": 1}".utf8), complete: true, contentType: "text/plain"))
        XCTAssertNotNil(try check("text/plain").refusal(prefix: html, complete: true, contentType: nil), "HTML is not plain text")
    }

    func testALongBodyIsNamedByItsAnnouncedSize() throws {
        let window = Array(repeating: UInt8(ascii: "x"), count: ContentSignature.window)
        XCTAssertEqual(
            try check("video").refusal(prefix: window, complete: false, contentType: "text/plain", announced: 2_147_483_648),
            "page.jpg: expected a video, got text/plain (2147483648 bytes starting '\(String(repeating: "x", count: 40))')")
        XCTAssertEqual(
            try check("video").refusal(prefix: window, complete: false, contentType: nil),
            "page.jpg: expected a video, got no Content-Type whose bytes are text/plain (more than 512 bytes starting '\(String(repeating: "x", count: 40))')")
    }

    func testMinimumSize() throws {
        let small = try check("", minSize: 1000)
        XCTAssertEqual(small.refusal(size: 58, announced: false), "page.jpg: expected at least 1000 bytes, got 58 bytes")
        XCTAssertEqual(small.refusal(size: 0, announced: true), "page.jpg: expected at least 1000 bytes, got 0 bytes (the size the server announced)")
        XCTAssertNil(small.refusal(size: 1000, announced: false))
        XCTAssertNil(try check("").refusal(size: 0, announced: false), "no minimum")
    }

    func testParseNamesTheFieldTheValueAndWhatItMayBe() throws {
        XCTAssertEqual(try ContentExpectation.parse("Image", field: "expect"), .kind(.image))
        XCTAssertEqual(try ContentExpectation.parse("", field: "expect"), nil)
        XCTAssertEqual(try ContentExpectation.parse("application/vnd.comic+zip", field: "expect"), .mime("application/vnd.comic+zip"))
        for bad in ["picture", "image/", "/png", "image/*", "*/*", "image/png; q=1", "a/b/c", "segment:ts", String(repeating: "a", count: 250) + "/" + String(repeating: "b", count: 10)] {
            XCTAssertThrowsError(try ContentExpectation.parse(bad, field: "files[1].expect"), bad) { error in
                let message = (error as? StashError)?.message ?? ""
                XCTAssertTrue(message.hasPrefix("files[1].expect '\(bad.prefix(300))' is not image, video, audio, text or a MIME type"), message)
            }
        }
        XCTAssertEqual(ContentExpectation(stored: "segment:ts"), .segment(.mpegTS))
        XCTAssertNil(ContentExpectation(stored: "segment:mpeg-dash"), "a row of a later daemon checks nothing here")
        XCTAssertThrowsError(try ContentRules.validated(expect: "", minSize: -1)) {
            XCTAssertEqual(($0 as? StashError)?.message, "min_size -1 is negative")
        }
        XCTAssertThrowsError(try ContentRules.validated(expect: "", minSize: Int64.max)) {
            XCTAssertEqual(($0 as? StashError)?.message, "min_size 9223372036854775807 is beyond the limit of \(ContentRules.maxMinSize) bytes")
        }
    }

    func testSegmentRefusalNamesTheSegment() {
        let segment = ContentCheck(expectation: .segment(.mpegTS), label: "video/seg00003.ts")
        XCTAssertEqual(
            segment.refusal(prefix: html, complete: true, contentType: "text/html"),
            "video/seg00003.ts: expected an MPEG-TS segment (sync byte 0x47 at 0, 188 and 376), got text/html (58 bytes starting '<!DOCTYPE html>')")
    }
}
