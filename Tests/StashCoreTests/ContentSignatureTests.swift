import StashCore
import XCTest

/// The signatures on their own, at their extremes: nothing, one byte, a signature cut short,
/// one that is only whole past the first read, and text cut inside a character.
final class ContentSignatureTests: XCTestCase {
    private func mime(_ bytes: [UInt8], complete: Bool = true) -> String? {
        ContentSignature.identify(bytes, complete: complete)?.mime
    }

    private func ts(packets: Int) -> [UInt8] {
        (0..<packets).flatMap { _ in [0x47] + [UInt8](repeating: 0x11, count: 187) }
    }

    private func box(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }

    func testEachFormatIsKnownByItsFirstBytes() {
        let riff = { (form: String) in Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array(form.utf8) + [0, 0, 0, 0] }
        let cases: [(String, [UInt8])] = [
            ("image/jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]),
            ("image/png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]),
            ("image/gif", Array("GIF89a".utf8) + [1, 0, 1, 0]),
            ("image/gif", Array("GIF87a".utf8)),
            ("image/webp", riff("WEBP")),
            ("audio/wav", riff("WAVE")),
            ("image/avif", box("ftyp", Array("avif".utf8) + [0, 0, 0, 0] + Array("mif1miaf".utf8))),
            ("image/avif", box("ftyp", Array("mif1".utf8) + [0, 0, 0, 0] + Array("avifmiaf".utf8))),
            ("video/mp4", box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8))),
            ("audio/mp4", box("ftyp", Array("M4A ".utf8) + [0, 0, 0, 0] + Array("M4A isom".utf8))),
            ("video/mp4", box("moof", [0, 0, 0, 16]) + box("mfhd")),
            ("video/mp2t", ts(packets: 3)),
            ("video/webm", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8)),
            ("video/x-matroska", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88] + Array("matroska".utf8)),
            ("audio/mpeg", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]),
            ("audio/mpeg", [0xFF, 0xFB, 0x90, 0x64]),
            ("audio/aac", [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC]),
            ("audio/flac", Array("fLaC".utf8) + [0, 0, 0, 34]),
            ("audio/ogg", Array("OggS".utf8) + [0, 2]),
            ("text/html", Array("<!DOCTYPE html>\n<html><body>404</body></html>".utf8)),
            ("text/html", Array("\u{FEFF}  <HTML>".utf8)),
            ("text/plain", Array("chapter 1\tpage 2\r\nnaïve — ok".utf8)),
            ("text/vtt", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nhi".utf8)),
        ]
        for (expected, bytes) in cases {
            XCTAssertEqual(mime(bytes), expected, "\(bytes.prefix(12))")
        }
    }

    func testEmptyAndOneByteBodies() {
        XCTAssertEqual(mime([]), "text/plain", "an empty body is empty text")
        XCTAssertNil(mime([0xFF]), "one byte of a JPEG is no JPEG")
        XCTAssertEqual(mime([0x47]), "text/plain", "one sync byte is no TS packet: it is the letter G")
        XCTAssertNil(mime([0x00]), "NUL is not text")
        XCTAssertEqual(mime([0x41]), "text/plain")
    }

    func testTruncatedSignaturesAreNotTheFormat() {
        XCTAssertNil(mime([0xFF, 0xD8]))
        XCTAssertNil(mime([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A]))
        XCTAssertEqual(mime(Array("GIF89".utf8)), "text/plain", "five letters are text, not a GIF")
        XCTAssertNil(mime(Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEB".utf8)))
        XCTAssertNil(mime([0, 0, 0, 0x18] + Array("fty".utf8)))
        XCTAssertNil(mime(Array(ts(packets: 1).prefix(187))), "a TS packet cut short")
        XCTAssertNil(mime([0xFF, 0xFB, 0x90]), "an MP3 frame header cut short")
    }

    func testTSNeedsItsSyncBytesWhereTheBodyReaches() {
        XCTAssertEqual(mime(ts(packets: 1)), "video/mp2t")
        XCTAssertEqual(mime(ts(packets: 2) + [0x47]), "video/mp2t")
        var broken = ts(packets: 3)
        broken[376] = 0x48
        XCTAssertNil(mime(broken), "the third packet lost its sync byte")
        broken = ts(packets: 2)
        broken[188] = 0
        XCTAssertNil(mime(broken))
    }

    /// An ftyp whose brands name AVIF only among its compatible brands, deep into the box:
    /// read from the window, not from the first bytes alone.
    func testBrandsPastTheFirstBytes() {
        let brands = (0..<20).flatMap { _ in Array("iso8".utf8) } + Array("avif".utf8)
        let file = box("ftyp", Array("mif1".utf8) + [0, 0, 0, 0] + brands) + box("meta")
        XCTAssertGreaterThan(file.count, 90)
        XCTAssertEqual(mime(file), "image/avif")
    }

    func testTextCutInsideACharacterAtTheWindowIsStillText() {
        let text = Array(String(repeating: "é", count: 300).utf8)
        let window = Array(text.prefix(ContentSignature.window - 1))
        XCTAssertEqual(window.count % 2, 1, "the window ends inside a two-byte character")
        XCTAssertEqual(mime(window, complete: false), "text/plain")
        XCTAssertNil(mime(window, complete: true), "a whole body that ends inside a character is not UTF-8")
        XCTAssertNil(mime(Array("ok".utf8) + [0xC3, 0x28]), "an invalid sequence")
        XCTAssertNil(mime(Array("a\u{7}b".utf8)), "a control character")
    }

    func testSegmentContainers() {
        XCTAssertTrue(SegmentContainer.mpegTS.accepts(ts(packets: 3) + [0x47, 1], complete: true))
        XCTAssertFalse(SegmentContainer.mpegTS.accepts(Array("<!DOCTYPE html>".utf8), complete: true))
        XCTAssertFalse(SegmentContainer.mpegTS.accepts([], complete: true))
        XCTAssertTrue(SegmentContainer.fragmentedMP4.accepts(box("styp", Array("msdh".utf8)) + box("moof"), complete: true))
        XCTAssertTrue(SegmentContainer.fragmentedMP4.accepts(box("ftyp", Array("iso6".utf8)) + box("moov"), complete: true))
        XCTAssertFalse(SegmentContainer.fragmentedMP4.accepts(box("html"), complete: true))
        XCTAssertFalse(SegmentContainer.fragmentedMP4.accepts([0, 0, 0, 4] + Array("moof".utf8), complete: true), "a box smaller than its header")
        XCTAssertTrue(SegmentContainer.packedAudio.accepts(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x3F], complete: true))
        XCTAssertTrue(SegmentContainer.packedAudio.accepts([0xFF, 0xF1, 0x50, 0x80, 0x02], complete: true))
        XCTAssertFalse(SegmentContainer.packedAudio.accepts(ts(packets: 2), complete: true))
        XCTAssertTrue(SegmentContainer.webVTT.accepts(Array("\u{FEFF}WEBVTT\n".utf8), complete: true))
        XCTAssertTrue(SegmentContainer.webVTT.accepts(Array("WEBVTT".utf8), complete: true))
        XCTAssertFalse(SegmentContainer.webVTT.accepts(Array("WEBVTTX".utf8), complete: true))
    }
}
