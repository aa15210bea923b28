import Foundation
import StashKeys
import XCTest

final class LicenseResponseTests: XCTestCase {
    private let server = "https://licence.example/clearkey"
    private let kid: [UInt8] = Array(0..<16)
    private let otherKid: [UInt8] = Array(16..<32)
    private let key: [UInt8] = Array(0xA0..<0xB0)
    private let otherKey: [UInt8] = Array(0xC0..<0xD0)

    private var kidText: String { Base64URL.encode(kid) }
    private var keyText: String { Base64URL.encode(key) }

    private func entry(kid: String, k: String, kty: String = #""oct""#) -> String {
        #"{"kty":\#(kty),"kid":"\#(kid)","k":"\#(k)"}"#
    }

    private func licence(_ entries: [String], extra: String = "") -> [UInt8] {
        Array(#"{"keys":[\#(entries.joined(separator: ","))],"type":"persistent-license"\#(extra)}"#.utf8)
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Spellings of a key an error message must never contain.
    private func spellings(of bytes: [UInt8]) -> [String] {
        [hex(bytes), hex(bytes).uppercased(), Base64URL.encode(bytes), Data(bytes).base64EncodedString()]
    }

    private func assertRefused(
        _ body: [UInt8], requested: [[UInt8]]? = nil, _ code: KeysError.Code, mentioning parts: [String],
        secrets: [[UInt8]] = [], line: UInt = #line
    ) {
        XCTAssertThrowsError(try LicenseResponse.parse(body, requested: requested ?? [kid], server: server), line: line) { error in
            guard let error = error as? KeysError else { return XCTFail("not a KeysError: \(error)", line: line) }
            XCTAssertEqual(error.code, code, "\(error)", line: line)
            for part in [server] + parts {
                XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line)
            }
            for secret in [key, otherKey] + secrets {
                for spelling in spellings(of: secret) {
                    XCTAssertFalse(error.description.contains(spelling), "key bytes in: \(error.description)", line: line)
                }
            }
        }
    }

    // MARK: - Accepted

    func testReadsTheRequestedKeysAndTerms() throws {
        let body = licence(
            [entry(kid: kidText, k: keyText), entry(kid: Base64URL.encode(otherKid), k: Base64URL.encode(otherKey))],
            extra: #","expires_in":86400,"playback_duration":3600"#)
        let response = try LicenseResponse.parse(body, requested: [kid, otherKid], server: server)
        XCTAssertEqual(response.keys, [kidText: key, Base64URL.encode(otherKid): otherKey])
        XCTAssertEqual(response.expiresIn, 86_400)
        XCTAssertEqual(response.playbackDuration, 3600)
    }

    func testTermsAreOptional() throws {
        let response = try LicenseResponse.parse(licence([entry(kid: kidText, k: keyText)]), requested: [kid], server: server)
        XCTAssertEqual(response.keys, [kidText: key])
        XCTAssertNil(response.expiresIn)
        XCTAssertNil(response.playbackDuration)
    }

    func testIgnoresKeysThatWereNotRequested() throws {
        let unrequested = entry(kid: Base64URL.encode(otherKid), k: Base64URL.encode([1, 2, 3]))
        let response = try LicenseResponse.parse(
            licence([unrequested, entry(kid: kidText, k: keyText)]), requested: [kid], server: server)
        XCTAssertEqual(response.keys, [kidText: key], "the 3-byte key of an unrequested kid is not an error")
    }

    func testNamesKeysByTheirCanonicalKidWhenThePaddedFormIsSent() throws {
        let response = try LicenseResponse.parse(
            licence([entry(kid: kidText + "==", k: keyText + "==")]), requested: [kid], server: server)
        XCTAssertEqual(response.keys, [kidText: key])
    }

    func testAcceptsTermsAtTheirLimits() throws {
        let response = try LicenseResponse.parse(
            licence([entry(kid: kidText, k: keyText)], extra: #","expires_in":1,"playback_duration":315360000"#),
            requested: [kid], server: server)
        XCTAssertEqual(response.expiresIn, 1)
        XCTAssertEqual(response.playbackDuration, LicenseResponse.maximumTerm)
    }

    // MARK: - Refused

    func testRefusesABodyThatIsNotJSON() {
        let truncated = Array(#"{"keys":[{"kty":"oct","kid":"\#(kidText)","k":"\#(keyText)""#.utf8)
        assertRefused(truncated, .licenseMalformed, mentioning: ["not a JSON object", "\(truncated.count) bytes"])
        assertRefused(Array("<html>502 Bad Gateway</html>".utf8), .licenseMalformed, mentioning: ["not a JSON object", "28 bytes"])
        assertRefused([], .licenseMalformed, mentioning: ["not a JSON object", "0 bytes"])
    }

    func testRefusesJSONThatIsNotAnObject() {
        assertRefused(Array("[\"\(keyText)\"]".utf8), .licenseMalformed, mentioning: ["not a JSON object"])
        assertRefused(Array("42".utf8), .licenseMalformed, mentioning: ["not a JSON object", "2 bytes"])
    }

    func testRefusesABodyOverOneMebibyte() {
        let body = licence([entry(kid: kidText, k: keyText)])
        let padded = body + [UInt8](repeating: UInt8(ascii: " "), count: LicenseResponse.maximumSize + 1 - body.count)
        assertRefused(padded, .licenseMalformed, mentioning: ["1048577 bytes", "1048576"])
        let atLimit = body + [UInt8](repeating: UInt8(ascii: " "), count: LicenseResponse.maximumSize - body.count)
        XCTAssertNoThrow(try LicenseResponse.parse(atLimit, requested: [kid], server: server))
    }

    func testRefusesAMissingOrWrongKeysField() {
        assertRefused(Array(#"{"type":"persistent-license"}"#.utf8), .licenseMalformed, mentioning: ["no 'keys' array"])
        assertRefused(
            Array(#"{"keys":{"kty":"oct","kid":"\#(kidText)","k":"\#(keyText)"}}"#.utf8), .licenseMalformed,
            mentioning: ["'keys'", "an object, not an array"])
    }

    func testRefusesAnEntryThatIsNotAnObject() {
        assertRefused(licence([entry(kid: kidText, k: keyText), #""\#(keyText)""#]), .licenseMalformed, mentioning: ["keys[1]", "a string, not an object"])
    }

    func testRefusesAKeyTypeOtherThanOct() {
        assertRefused(licence([entry(kid: kidText, k: keyText, kty: #""RSA""#)]), .licenseMalformed, mentioning: ["keys[0]", #"kty "RSA""#, "oct"])
        assertRefused(licence([#"{"kid":"\#(kidText)","k":"\#(keyText)"}"#]), .licenseMalformed, mentioning: ["keys[0] with no kty"])
        assertRefused(licence([entry(kid: kidText, k: keyText, kty: "7")]), .licenseMalformed, mentioning: ["keys[0]", "kty that is a number"])
    }

    func testRefusesAKidThatIsNotBase64URL() {
        let standard = Data(kid).base64EncodedString()
        assertRefused(licence([entry(kid: standard + "+/", k: keyText)]), .licenseMalformed, mentioning: ["keys[0].kid", "not base64url"])
        assertRefused(licence([#"{"kty":"oct","k":"\#(keyText)"}"#]), .licenseMalformed, mentioning: ["keys[0].kid"])
    }

    func testRefusesAKeyThatIsNotBase64URLWithoutRepeatingIt() {
        // Standard base64 of this key has '+' or '/', which base64url does not.
        let plusSlashKey: [UInt8] = [0xFB, 0xFF, 0xBF] + Array(repeating: 0x3E, count: 13)
        let standard = Data(plusSlashKey).base64EncodedString()
        XCTAssertTrue(standard.contains("+") || standard.contains("/"))
        assertRefused(
            licence([entry(kid: kidText, k: standard)]), .licenseMalformed,
            mentioning: ["keys[0].k", "kid \(kidText)", "not base64url"], secrets: [plusSlashKey])
        assertRefused(
            licence([entry(kid: kidText, k: keyText + " ")]), .licenseMalformed, mentioning: ["keys[0].k", "not base64url"])
    }

    func testRefusesALicenceWithoutARequestedKey() {
        assertRefused(
            licence([entry(kid: kidText, k: keyText)]), requested: [kid, otherKid], .licenseKeyMissing,
            mentioning: ["has no key for kid \(Base64URL.encode(otherKid))"])
        assertRefused(licence([]), .licenseKeyMissing, mentioning: ["has no key for kid \(kidText)"])
    }

    func testRefusesAKeyThatIsNotSixteenBytes() {
        let short = Array(key.prefix(15))
        assertRefused(
            licence([entry(kid: kidText, k: Base64URL.encode(short))]), .licenseKeyLength,
            mentioning: ["the key for kid \(kidText) is 15 bytes", "AES-128", "16"], secrets: [short])
        let long = key + otherKey
        assertRefused(
            licence([entry(kid: kidText, k: Base64URL.encode(long))]), .licenseKeyLength,
            mentioning: ["is 32 bytes"], secrets: [long])
    }

    func testRefusesTwoDifferentKeysForOneKid() {
        assertRefused(
            licence([entry(kid: kidText, k: keyText), entry(kid: kidText, k: Base64URL.encode(otherKey))]),
            .licenseMalformed, mentioning: ["two different keys for kid \(kidText)"])
        XCTAssertNoThrow(try LicenseResponse.parse(
            licence([entry(kid: kidText, k: keyText), entry(kid: kidText, k: keyText)]), requested: [kid], server: server))
    }

    func testRefusesTermsThatAreNotPositiveWholeSecondsUpToTenYears() {
        let cases: [(String, String)] = [
            ("0", "expires_in 0"), ("-5", "expires_in -5"), ("3.5", "expires_in 3.5"), ("315360001", "expires_in 315360001"),
            ("1e30", "expires_in 1e+30"), (#""3600""#, "expires_in that is a string"), ("true", "expires_in that is a boolean"),
            ("null", "expires_in that is null"),
        ]
        for (value, named) in cases {
            assertRefused(
                licence([entry(kid: kidText, k: keyText)], extra: #","expires_in":\#(value)"#), .licenseMalformed,
                mentioning: [named, "315360000", "10 years"])
        }
        assertRefused(
            licence([entry(kid: kidText, k: keyText)], extra: #","expires_in":60,"playback_duration":0"#), .licenseMalformed,
            mentioning: ["playback_duration 0", "315360000"])
    }
}
