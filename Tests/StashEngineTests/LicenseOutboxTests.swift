import Foundation
import StashCore
import StashFetch
import StashKeys
import XCTest

@testable import StashEngine

/// The licence release outbox on the harness: the licence server is the fake fetch service's
/// in-memory answer, the retry delay the manual clock's.
final class LicenseOutboxTests: XCTestCase {
    private static let server = "http://licence.test/acquire"

    /// A COMPLETED protected download holding a valid licence.
    private static func licensed(_ id: String, at now: Date) -> Download {
        var download = Download(id: id, uri: "http://h.test/\(id).m3u8", title: "", state: .completed, assetPath: "assets/\(id)", hls: HLSOptions())
        download.drm = DRMParams(licenseServer: server)
        download.hasDRM = true
        download.license = LicenseTerms(acquiredAt: now, expiresIn: 100_000, playbackDuration: nil, kids: [Base64URL.encode(Array(0..<16))])
        return download
    }

    /// A cancel while the licence server is unreachable keeps the release and tries again on
    /// the clock; across a restart it is sent once the server answers, and never again.
    func testAReleaseThatCannotBeSentIsKeptAcrossARestartAndReachesTheServerOnce() async throws {
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let harness = try await EngineHarness { _, registry in
            try await registry.save([Self.licensed("lic", at: start)])
        }
        try await harness.engine.cancel(id: "lic")
        try await harness.eventually("the first attempt failed and is counted") {
            await harness.engine.outboxState().attempts == [1]
        }
        XCTAssertEqual(harness.fetch.bodyRequests, [Self.server])
        try await harness.eventually("the outbox waits for its retry") { harness.clock.hasSleeper(wakingIn: LicenseOutbox.firstRetry) }
        harness.clock.advance(by: LicenseOutbox.firstRetry)
        try await harness.eventually("the second attempt failed, and waits twice as long") {
            harness.clock.hasSleeper(wakingIn: LicenseOutbox.firstRetry * 2)
        }
        let twice = await harness.engine.outboxState()
        XCTAssertEqual(twice.attempts, [2])

        harness.fetch.answerBodies { request in FetchedBody(bytes: Array("{}".utf8), effectiveURL: request.url, contentType: "application/json") }
        try await harness.restart()
        try await harness.eventually("the release reached the server and left the outbox") {
            await harness.engine.outboxState() == (0, [], false)
        }
        XCTAssertEqual(harness.fetch.bodyRequests, [Self.server, Self.server, Self.server])

        // Acknowledged: nothing is left to send, whatever time passes or however often stashd starts.
        harness.clock.advance(by: LicenseOutbox.maxRetry * 10)
        try await harness.restart()
        try await harness.settle()
        XCTAssertEqual(harness.fetch.bodyRequests.count, 3, "the release reaches the server once")
        await harness.stop()
    }
}
