import StashCore
import StashHLS
import XCTest
@testable import StashEngine

/// Which of a package's keys are fetched from their URI and which are asked of the licence
/// server: a wrong split fetches an skd:// "URL" or sends a licence server a key it cannot know.
final class HLSPreparationTests: XCTestCase {
    let drm = DRMParams(licenseServer: "https://license.example.com/clearkey")
    let kid: [UInt8] = Array(0..<16)
    let skd = PackageKey(uri: "skd://000102030405060708090a0b0c0d0e0f", path: "video/key0.key", licenseKeyID: Array(0..<16))

    private func assertInvalid(_ keys: [PackageKey], drm: DRMParams?, mentions: [String],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try HLSPreparation.sortKeys(keys, drm: drm), file: file, line: line) { error in
            guard case .invalid(let message)? = error as? LicenseFailure else {
                return XCTFail("expected LicenseFailure.invalid, got \(error)", file: file, line: line)
            }
            for text in mentions {
                XCTAssertTrue(message.contains(text), "'\(message)' does not mention '\(text)'", file: file, line: line)
            }
        }
    }

    func testAnSKDKeyWithoutDRMParametersAsksForThem() {
        assertInvalid([skd], drm: nil, mentions: [skd.uri, "--license-server"])
    }

    func testAnSKDKeyWithDRMIsLicensed() throws {
        let sorted = try HLSPreparation.sortKeys([skd], drm: drm)
        XCTAssertEqual(sorted.plain, [])
        XCTAssertEqual(sorted.licensed, [skd])
    }

    func testAnHTTPKeyWithAKeyIDAndDRMIsLicensed() throws {
        let key = PackageKey(uri: "https://keys.example.com/k1", path: "video/key0.key", licenseKeyID: kid)
        let sorted = try HLSPreparation.sortKeys([key], drm: drm)
        XCTAssertEqual(sorted.plain, [], "the URI is not fetched when the licence server gives the key")
        XCTAssertEqual(sorted.licensed, [key])
    }

    /// With DRM every key must come from the licence server; one it cannot name would be
    /// fetched in the clear next to licensed ones, which is not what the app asked for.
    func testAnHTTPKeyWithoutAKeyIDIsRefusedWithDRM() {
        let licensed = PackageKey(uri: "https://keys.example.com/k1", path: "video/key0.key", licenseKeyID: kid)
        let plain = PackageKey(uri: "https://keys.example.com/k2", path: "video/key1.key")
        assertInvalid([licensed, plain], drm: drm, mentions: ["https://keys.example.com/k2", "no key id", "KEYID"])
    }

    func testPlainKeysWithoutDRMAreFetched() throws {
        let plain = PackageKey(uri: "https://keys.example.com/k1", path: "video/key0.key")
        // A KEYID alone does not make a licence key: without a licence server the URI gives it.
        let withID = PackageKey(uri: "https://keys.example.com/k2", path: "video/key1.key", licenseKeyID: kid)
        let sorted = try HLSPreparation.sortKeys([plain, withID], drm: nil)
        XCTAssertEqual(sorted.plain, [plain, withID])
        XCTAssertEqual(sorted.licensed, [])
        let none = try HLSPreparation.sortKeys([], drm: drm)
        XCTAssertTrue(none.plain.isEmpty && none.licensed.isEmpty)
    }

    func testLicenseKeyIDsAreBase64URLByKeyPath() {
        let plain = PackageKey(uri: "https://keys.example.com/k1", path: "audio/en/key0.key")
        XCTAssertEqual(HLSPreparation.licenseKeyIDs([skd, plain]), ["video/key0.key": "AAECAwQFBgcICQoLDA0ODw"])
        // An opaque id (skd://someuri) is named by its text's UTF-8 bytes.
        let opaque = PackageKey(uri: "skd://someuri", path: "audio/en/key1.key", licenseKeyID: Array("someuri".utf8))
        XCTAssertEqual(HLSPreparation.licenseKeyIDs([opaque]), ["audio/en/key1.key": "c29tZXVyaQ"])
    }

    func testTheQualityOfAVariantWithoutBandwidthSaysUnknown() {
        XCTAssertEqual(HLSPreparation.describe(Variant(uri: "u", bandwidth: nil, resolution: Resolution(width: 640, height: 360))),
                       "640x360, unknown bandwidth")
        XCTAssertEqual(HLSPreparation.describe(Variant(uri: "u", bandwidth: 3_200_000)), "3.2 Mb/s")
    }

    /// GetPlaybackKey names a key by 32 hex digits, base64url, or an opaque skd id's text.
    func testAPlaybackKeyIsFoundByEachSpellingOfItsID() throws {
        let terms = LicenseTerms(acquiredAt: Date(timeIntervalSince1970: 0), expiresIn: nil, playbackDuration: nil,
                                 kids: ["AAECAwQFBgcICQoLDA0ODw", "c29tZXVyaQ"])
        XCTAssertEqual(try LicenseManager.kid("", in: terms, id: "d"), "AAECAwQFBgcICQoLDA0ODw")
        XCTAssertEqual(try LicenseManager.kid("000102030405060708090a0b0c0d0e0f", in: terms, id: "d"), "AAECAwQFBgcICQoLDA0ODw")
        XCTAssertEqual(try LicenseManager.kid("00010203-0405-0607-0809-0A0B0C0D0E0F", in: terms, id: "d"), "AAECAwQFBgcICQoLDA0ODw")
        XCTAssertEqual(try LicenseManager.kid("c29tZXVyaQ", in: terms, id: "d"), "c29tZXVyaQ")
        XCTAssertEqual(try LicenseManager.kid("someuri", in: terms, id: "d"), "c29tZXVyaQ")
        XCTAssertThrowsError(try LicenseManager.kid("otheruri", in: terms, id: "d")) { error in
            XCTAssertTrue("\(error)".contains("'otheruri' is not one of the 2 keys"), "\(error)")
        }
    }
}
