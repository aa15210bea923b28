import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// `EngineState`'s licence decisions alone: given a state and a licence report, the effects in
/// order. The clock stands at 2,000,000,000 s.
final class EngineStateLicenseTests: XCTestCase {
    private static let now = Date(timeIntervalSince1970: 2_000_000_000)

    private static func licensed(_ id: String, state: DownloadState = .completed, acquiredAgo: TimeInterval, expiresIn: Int?) -> Download {
        var download = EngineStateTests.download(id, state: state)
        download.drm = DRMParams(licenseServer: "http://licence.test/acquire")
        download.hasDRM = true
        download.license = LicenseTerms(
            acquiredAt: now.addingTimeInterval(-acquiredAgo), expiresIn: expiresIn, playbackDuration: nil, kids: ["AAECAwQFBgcICQoLDA0ODw"])
        return download
    }

    /// As `EngineStateTests.describe`, the timer's moment in seconds from now.
    private static func describe(_ effects: [EngineEffect]) -> [String] {
        effects.flatMap { effect -> [String] in
            guard case .license(.arm(let moment)) = effect else { return EngineStateTests.describe([effect]) }
            return [moment.map { "licence timer in \(Int($0.timeIntervalSince(now))) s" } ?? "licence timer off"]
        }
    }

    func testTheTimerIsArmedForTheFirstMomentOfAnyLicence() throws {
        var state = EngineStateTests.makeState()
        _ = try state.on(.load(Self.licensed("late", acquiredAgo: 0, expiresIn: 1000)))
        _ = try state.on(.load(Self.licensed("soon", acquiredAgo: 0, expiresIn: 100)))
        XCTAssertEqual(Self.describe(try state.on(.license(.timer))), ["licence timer in 80 s"], "the renewal of 'soon', at 80 %")
        XCTAssertEqual(Self.describe(try state.on(.license(.checked("late")))), [], "armed for that moment already")
    }

    func testADueRenewalIsOrderedAndTheTimerWaitsForTheExpiry() throws {
        var state = EngineStateTests.makeState()
        _ = try state.on(.load(Self.licensed("film", acquiredAgo: 80, expiresIn: 100)))
        XCTAssertEqual(Self.describe(try state.on(.license(.timer))), ["renew film", "licence timer in 20 s"])
        XCTAssertEqual(state.licenseSchedule.renewing, ["film"])
        let failure = LicenseFailure.unreachable("licence.test cannot be reached")
        let lines = Self.describe(try state.on(.license(.failed("film", .renew, failure, automatic: true))))
        XCTAssertEqual(lines.filter { $0.hasPrefix("commit -, then publish") }.count, 1, "a LicenseError event: \(lines)")
        XCTAssertEqual(lines.last, "licence timer in 15 s", "the next try 15 s later, before the expiry")
        XCTAssertEqual(state.licenseSchedule.renewing, [])
    }

    func testAnExpiredLicenceIsCommittedAndAnnouncedInListOrder() throws {
        var state = EngineStateTests.makeState()
        _ = try state.on(.load(Self.licensed("b", acquiredAgo: 200, expiresIn: 100)))
        _ = try state.on(.load(Self.licensed("a", state: .licenseExpired, acquiredAgo: 200, expiresIn: 100)))
        _ = try state.on(.load(Self.licensed("c", acquiredAgo: 200, expiresIn: 100)))
        let lines = Self.describe(try state.on(.license(.timer)))
        XCTAssertEqual(lines.filter { $0.hasPrefix("commit save") }, [
            "commit save b LICENSE_EXPIRED, then publish b LICENSE_EXPIRED", "commit save c LICENSE_EXPIRED, then publish c LICENSE_EXPIRED",
        ])
        XCTAssertEqual(lines.filter { $0.hasPrefix("renew") }, ["renew b", "renew a", "renew c"])
    }

    /// The release is kept before the cancel's commit: no crash can leave the record gone and
    /// the release unrecorded.
    func testACancelKeepsTheLicenceReleaseBeforeTheRemovalIsCommitted() throws {
        var state = EngineStateTests.makeState()
        _ = try state.on(.load(Self.licensed("film", acquiredAgo: 0, expiresIn: 100)))
        let lines = Self.describe(try state.on(.cancel("film")))
        XCTAssertEqual(lines.first, "keep release of film")
        XCTAssertEqual(lines.filter { $0.hasPrefix("keep") || $0.hasPrefix("commit") }, [
            "keep release of film", "commit save film REMOVING, then publish film REMOVING",
        ])
        _ = try state.on(.load(EngineStateTests.download("plain", state: .completed)))
        XCTAssertFalse(Self.describe(try state.on(.cancel("plain"))).contains { $0.hasPrefix("keep") }, "no licence, no release")
    }
}
