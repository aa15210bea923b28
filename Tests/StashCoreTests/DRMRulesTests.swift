import StashCore
import XCTest

final class DRMRulesTests: XCTestCase {
    let valid = DRMParams(
        licenseServer: "https://license.example.com/clearkey",
        headers: [HTTPHeader(name: "Authorization", value: "Bearer t"), HTTPHeader(name: "X-Empty", value: "")],
        contentID: "film-42", certificateURL: "http://127.0.0.1:8443/cert.pem")

    /// Asserts INVALID_ARGUMENT whose message contains every one of `mentions`: the field, so a
    /// client knows which of its many inputs to fix, and the value or the limit.
    private func assertRefused<T>(_ expression: @autoclosure () throws -> T, mentions: [String],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            guard let error = error as? StashError else { return XCTFail("not a StashError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .invalidArgument, error.message, file: file, line: line)
            for text in mentions {
                XCTAssertTrue(error.message.contains(text), "'\(error.message)' does not mention '\(text)'", file: file, line: line)
            }
        }
    }

    private func with(_ change: (inout DRMParams) -> Void) -> DRMParams {
        var drm = valid
        change(&drm)
        return drm
    }

    // MARK: - kind

    func testEmptyTypeMeansNoDRM() throws {
        XCTAssertNil(try DRMRules.kind(""))
    }

    func testClearKeyIsReadWhateverItsCase() throws {
        XCTAssertEqual(try DRMRules.kind("clearkey"), .clearkey)
        XCTAssertEqual(try DRMRules.kind("ClearKey"), .clearkey)
        XCTAssertEqual(try DRMRules.kind("CLEARKEY"), .clearkey)
    }

    func testUnknownTypesAreRefusedListingTheSupportedOnes() {
        for name in ["widevine", "fairplay", "clear-key", " clearkey"] {
            assertRefused(try DRMRules.kind(name), mentions: ["drm.type", "'\(name)'", "supported types are: clearkey"])
        }
        // A hostile value is cut, not echoed whole.
        let long = String(repeating: "w", count: 5000)
        XCTAssertThrowsError(try DRMRules.kind(long)) { error in
            XCTAssertLessThan("\(error)".count, 300, "\(error)".prefix(100) + "…")
        }
    }

    // MARK: - validate

    func testValidParametersPass() throws {
        try DRMRules.validate(valid)
        // Only the licence server is required.
        try DRMRules.validate(DRMParams(licenseServer: "http://lic.example.com"))
        try DRMRules.validate(with { $0.headers = (0..<DRMRules.maxHeaders).map { HTTPHeader(name: "X-H\($0)", value: "v") } })
        try DRMRules.validate(with { $0.contentID = String(repeating: "é", count: DRMRules.maxContentIDLength / 2) })
    }

    func testTheLicenseServerIsRequired() {
        assertRefused(try DRMRules.validate(with { $0.licenseServer = "" }), mentions: ["drm.license_server", "required"])
    }

    func testTheLicenseServerMustBeAnAbsoluteHTTPURL() {
        for bad in ["ftp://license.example.com/", "file:///etc/passwd", "license.example.com/clearkey", "/clearkey",
                    "https://", "https://license example.com/", "javascript:alert(1)"] {
            assertRefused(try DRMRules.validate(with { $0.licenseServer = bad }), mentions: ["drm.license_server", "'\(bad)'", "http(s)"])
        }
        assertRefused(try DRMRules.validate(with { $0.licenseServer = "https://h/" + String(repeating: "a", count: 9000) }),
                      mentions: ["drm.license_server"])
    }

    func testTheCertificateURLIsOptionalButMustBeHTTP() throws {
        try DRMRules.validate(with { $0.certificateURL = "" })
        for bad in ["file:///etc/ssl/cert.pem", "cert.pem", "https://"] {
            assertRefused(try DRMRules.validate(with { $0.certificateURL = bad }), mentions: ["drm.certificate_url", "'\(bad)'"])
        }
    }

    func testTooManyLicenceHeadersAreRefusedWithTheLimit() {
        let headers = (0...DRMRules.maxHeaders).map { HTTPHeader(name: "X-H\($0)", value: "v") }
        assertRefused(try DRMRules.validate(with { $0.headers = headers }),
                      mentions: ["drm.license_headers", "\(DRMRules.maxHeaders + 1) headers", "limit is \(DRMRules.maxHeaders)"])
    }

    /// The headers go into every licence request: one that could split the request must not
    /// get as far as the licence server.
    func testEachLicenceHeaderIsChecked() {
        assertRefused(try DRMRules.validate(with { $0.headers.append(HTTPHeader(name: "Bad Name", value: "v")) }),
                      mentions: ["'Bad Name'"])
        assertRefused(try DRMRules.validate(with { $0.headers.append(HTTPHeader(name: "X-Token", value: "a\r\nInjected: 1")) }),
                      mentions: ["'X-Token'", "CR, LF"])
    }

    /// The limit is on bytes: 513 two-byte characters are 1026 bytes, too many.
    func testTheContentIDLimitIsInBytes() {
        assertRefused(try DRMRules.validate(with { $0.contentID = String(repeating: "é", count: DRMRules.maxContentIDLength / 2 + 1) }),
                      mentions: ["drm.content_id", "1026 bytes", "limit is \(DRMRules.maxContentIDLength)"])
        assertRefused(try DRMRules.validate(with { $0.contentID = String(repeating: "c", count: DRMRules.maxContentIDLength + 1) }),
                      mentions: ["drm.content_id", "1025 bytes"])
    }
}
