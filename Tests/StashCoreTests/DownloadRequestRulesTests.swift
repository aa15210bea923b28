import StashCore
import XCTest

final class DownloadRequestRulesTests: XCTestCase {
    func testAcceptsHTTPAndHTTPS() throws {
        try DownloadRequestRules.validateURI("http://127.0.0.1:8080/a.bin")
        try DownloadRequestRules.validateURI("https://example.org/x?y=1")
    }

    func testRefusesOtherSchemesAndMalformedURLs() {
        for bad in ["ftp://h/x", "file:///etc/passwd", "http://", "not a url", "", "http://h/a b", "javascript:alert(1)"] {
            XCTAssertThrowsError(try DownloadRequestRules.validateURI(bad), bad) { error in
                XCTAssertEqual((error as? StashError)?.code, .invalidArgument, bad)
            }
        }
        XCTAssertThrowsError(try DownloadRequestRules.validateURI("http://h/" + String(repeating: "a", count: 9000))) { error in
            XCTAssertTrue("\(error)".contains("8192"))
        }
    }

    func testIDsAreSafeFolderNames() throws {
        try DownloadRequestRules.validateID("chapter-12_v2.0")
        for bad in ["", "..", ".x", "a/b", "a b", String(repeating: "x", count: 129), "é"] {
            XCTAssertThrowsError(try DownloadRequestRules.validateID(bad), bad)
        }
    }

    func testSHA256IsNormalised() throws {
        let upper = String(repeating: "AB", count: 32)
        XCTAssertEqual(try DownloadRequestRules.normalizeSHA256(upper), upper.lowercased())
        XCTAssertEqual(try DownloadRequestRules.normalizeSHA256(""), "")
        XCTAssertThrowsError(try DownloadRequestRules.normalizeSHA256("abc"))
        XCTAssertThrowsError(try DownloadRequestRules.normalizeSHA256(String(repeating: "g", count: 64)))
    }

    func testHeadersCannotInjectLines() throws {
        XCTAssertEqual(try HTTPHeader(parsing: "Authorization: Bearer x:y"), HTTPHeader(name: "Authorization", value: "Bearer x:y"))
        XCTAssertThrowsError(try HTTPHeader(parsing: "NoColon"))
        XCTAssertThrowsError(try HTTPHeader(parsing: "Bad Name: v"))
        XCTAssertThrowsError(try HTTPHeader(name: "X", value: "a\r\nInjected: 1").validate())
    }
}
