import Foundation
import StashCore
import XCTest

final class LicenseTermsTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)
    private let kids = ["AAECAwQFBgcICQoLDA0ODw"]

    private func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    func testAValidLicenseCountsWholeSecondsLeft() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: 100, playbackDuration: nil, kids: kids)
        XCTAssertEqual(terms.expiresAt, at(100))
        let check = terms.check(at: at(10.5))
        XCTAssertEqual(check, LicenseCheck(verdict: .valid, licenseSecondsLeft: 89, playbackSecondsLeft: nil, expiresAt: at(100)))
        XCTAssertTrue(check.isValid)
    }

    func testTheLicenseExpiresExactlyAtItsExpiry() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: 100, playbackDuration: nil, kids: kids)
        let justBefore = terms.check(at: at(99.999))
        XCTAssertEqual(justBefore.verdict, .valid)
        XCTAssertEqual(justBefore.licenseSecondsLeft, 0, "floored")
        let atExpiry = terms.check(at: at(100))
        XCTAssertEqual(atExpiry.verdict, .licenseExpired)
        XCTAssertFalse(atExpiry.isValid)
        XCTAssertEqual(atExpiry.licenseSecondsLeft, 0)
        XCTAssertEqual(atExpiry.expiresAt, at(100))
        XCTAssertEqual(terms.check(at: at(5000)).licenseSecondsLeft, 0, "never negative")
    }

    func testALicenseWithoutExpiryStaysValid() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: nil, playbackDuration: nil, kids: kids)
        XCTAssertNil(terms.expiresAt)
        XCTAssertNil(terms.renewalDue)
        let check = terms.check(at: at(100 * 365 * 86_400))
        XCTAssertEqual(check, LicenseCheck(verdict: .valid, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil))
    }

    func testAPlaybackWindowNotStartedShowsItsFullDuration() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: 86_400, playbackDuration: 3600, kids: kids)
        XCTAssertNil(terms.firstPlaybackAt)
        XCTAssertNil(terms.playbackEndsAt)
        let check = terms.check(at: at(50_000))
        XCTAssertEqual(check.verdict, .valid)
        XCTAssertEqual(check.playbackSecondsLeft, 3600)
        XCTAssertEqual(check.licenseSecondsLeft, 36_400)
    }

    func testARunningPlaybackWindowCountsDown() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 86_400, playbackDuration: 3600, kids: kids)
        terms.startPlayback(at: at(10))
        XCTAssertEqual(terms.firstPlaybackAt, at(10))
        XCTAssertEqual(terms.playbackEndsAt, at(3610))
        let check = terms.check(at: at(20.25))
        XCTAssertEqual(check.verdict, .valid)
        XCTAssertEqual(check.playbackSecondsLeft, 3589)
    }

    func testOnlyTheFirstPlaybackStartsTheWindow() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 86_400, playbackDuration: 3600, kids: kids)
        terms.startPlayback(at: at(10))
        terms.startPlayback(at: at(2000))
        XCTAssertEqual(terms.firstPlaybackAt, at(10))
        XCTAssertEqual(terms.playbackEndsAt, at(3610))
    }

    func testAnEndedPlaybackWindowIsFinal() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 86_400, playbackDuration: 3600, kids: kids)
        terms.startPlayback(at: at(10))
        XCTAssertEqual(terms.check(at: at(3609.5)).verdict, .valid)
        let ended = terms.check(at: at(3610))
        XCTAssertEqual(ended.verdict, .playbackExpired)
        XCTAssertEqual(ended.playbackSecondsLeft, 0)
        XCTAssertFalse(ended.isValid)
        // Once the licence is expired too, the ended window still decides: it cannot be renewed away.
        let both = terms.check(at: at(90_000))
        XCTAssertEqual(both.verdict, .playbackExpired)
        XCTAssertEqual(both.playbackSecondsLeft, 0)
        XCTAssertEqual(both.licenseSecondsLeft, 0)
    }

    func testRenewalIsDueAtEightyPercentOfTheLicence() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: 1000, playbackDuration: nil, kids: kids)
        XCTAssertEqual(terms.renewalDue, at(800))
    }

    func testARenewalExtendsTheLicenceButKeepsThePlaybackWindow() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 1000, playbackDuration: 3600, kids: kids)
        terms.startPlayback(at: at(100))
        let renewed = terms.renewed(at: at(800), expiresIn: 2000, playbackDuration: 7200)
        XCTAssertEqual(renewed.acquiredAt, at(800))
        XCTAssertEqual(renewed.expiresAt, at(2800))
        XCTAssertEqual(renewed.playbackDuration, 7200)
        XCTAssertEqual(renewed.firstPlaybackAt, at(100))
        XCTAssertEqual(renewed.playbackEndsAt, at(7300))
        XCTAssertEqual(renewed.kids, kids)
        XCTAssertEqual(renewed.renewalDue, at(2400))
        XCTAssertEqual(terms.check(at: at(1000)).verdict, .licenseExpired)
        XCTAssertEqual(renewed.check(at: at(1000)).verdict, .valid)
    }

    func testARenewalWithoutPlaybackBeforeLeavesTheWindowUnstarted() {
        let terms = LicenseTerms(acquiredAt: start, expiresIn: 1000, playbackDuration: 3600, kids: kids)
        let renewed = terms.renewed(at: at(800), expiresIn: nil, playbackDuration: 3600)
        XCTAssertNil(renewed.firstPlaybackAt)
        XCTAssertNil(renewed.expiresAt)
        XCTAssertEqual(renewed.check(at: at(1_000_000)).playbackSecondsLeft, 3600)
    }

    func testSecondsLeftSaturateForFarDates() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: nil, playbackDuration: nil, kids: kids)
        terms.expiresAt = Date(timeIntervalSince1970: 1e20)
        XCTAssertEqual(terms.check(at: start).licenseSecondsLeft, Int64.max)
    }

    func testTermsSurviveAJSONRoundTrip() throws {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 1000, playbackDuration: 3600, kids: kids)
        terms.startPlayback(at: at(5))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        XCTAssertEqual(try decoder.decode(LicenseTerms.self, from: encoder.encode(terms)), terms)
        terms.refusedAt = at(7)
        XCTAssertEqual(try decoder.decode(LicenseTerms.self, from: encoder.encode(terms)), terms)
    }

    /// A refusal voids terms still in time; an ended playback window stays the more final answer.
    func testARefusalVoidsTermsStillInTime() {
        var terms = LicenseTerms(acquiredAt: start, expiresIn: 1000, playbackDuration: 60, kids: kids)
        terms.refusedAt = at(10)
        XCTAssertEqual(terms.check(at: at(11)).verdict, .refused)
        XCTAssertFalse(terms.check(at: at(11)).isValid)
        terms.startPlayback(at: at(12))
        XCTAssertEqual(terms.check(at: at(100)).verdict, .playbackExpired)
        XCTAssertNil(terms.renewed(at: at(200), expiresIn: 1000, playbackDuration: nil).refusedAt, "a granted renewal lifts it")
    }

    /// Terms stored before refusals were kept have no such key.
    func testTermsStoredWithoutARefusalDecode() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let json = #"{"acquiredAt": 1700000000000, "expiresAt": 1700000100000, "kids": ["k"]}"#
        let terms = try decoder.decode(LicenseTerms.self, from: Data(json.utf8))
        XCTAssertNil(terms.refusedAt)
        XCTAssertEqual(terms.check(at: Date(timeIntervalSince1970: 1_700_000_050)).verdict, .valid)
    }
}
