import StashKeys
import XCTest

final class LicenseRequestTests: XCTestCase {
    private let kid: [UInt8] = Array(0..<16)
    private let otherKid: [UInt8] = Array(repeating: 0xFF, count: 16)

    func testAcquireBodyWithoutOptionalFields() {
        let body = LicenseRequest(kids: [kid], action: .acquire).body()
        XCTAssertEqual(
            String(decoding: body, as: UTF8.self),
            #"{"action":"acquire","kids":["AAECAwQFBgcICQoLDA0ODw"],"type":"persistent-license"}"#)
    }

    func testBodyWithEveryField() {
        let request = LicenseRequest(
            kids: [kid, otherKid], action: .renew, contentID: #"movies/42 "director's cut""#,
            certificateSHA256: "1d3a0ad4654b4f0cec5b58e45b10680d2393030c8af6628a54e2099682c06487")
        XCTAssertEqual(
            String(decoding: request.body(), as: UTF8.self),
            #"{"action":"renew","certificate_sha256":"1d3a0ad4654b4f0cec5b58e45b10680d2393030c8af6628a54e2099682c06487","#
                + #""content_id":"movies/42 \"director's cut\"","kids":["AAECAwQFBgcICQoLDA0ODw","_____________________w"],"#
                + #""type":"persistent-license"}"#)
    }

    /// An opaque `skd://someuri` id is asked for as the UTF-8 bytes of its text.
    func testAnOpaqueKeyIDIsItsUTF8InBase64URL() {
        let body = LicenseRequest(kids: [Array("someuri".utf8), kid], action: .acquire).body()
        XCTAssertEqual(
            String(decoding: body, as: UTF8.self),
            #"{"action":"acquire","kids":["c29tZXVyaQ","AAECAwQFBgcICQoLDA0ODw"],"type":"persistent-license"}"#)
    }

    func testReleaseActionAndSameBytesEveryTime() {
        let request = LicenseRequest(kids: [otherKid], action: .release, contentID: "c")
        XCTAssertEqual(
            String(decoding: request.body(), as: UTF8.self),
            #"{"action":"release","content_id":"c","kids":["_____________________w"],"type":"persistent-license"}"#)
        XCTAssertEqual(request.body(), request.body())
    }
}
