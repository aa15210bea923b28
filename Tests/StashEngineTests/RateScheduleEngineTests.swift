import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// The rate schedule on the engine's injected clock: the limit in force is decided in
/// `EngineState` at each config change and when the one timer for its next change fires; a
/// timer armed before a change of schedule is ignored; GetSystemInfo tells the limit now and
/// the next change. The harness's clock starts on Wednesday 2033-05-18 03:33:20 UTC.
final class RateScheduleEngineTests: XCTestCase {
    private func makeHarness() async throws -> EngineHarness {
        var config = DaemonConfig()
        config.rateLimit = 5000
        return try await EngineHarness(config: config)
    }

    private func waitForTimer(_ harness: EngineHarness, in seconds: TimeInterval) async throws {
        try await harness.eventually("the schedule's timer is armed for \(seconds) s") { harness.clock.hasSleeper(wakingIn: seconds) }
    }

    func testTheScheduleSwitchesTheGlobalLimitAtItsTimes() async throws {
        let harness = try await makeHarness()
        XCTAssertEqual(harness.fetch.rateLimit, 5000, "no schedule: rate-limit holds")
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "Wed 04:00-05:00 1M; Wed 22:00-02:00 0")])
        XCTAssertEqual(harness.fetch.rateLimit, 5000, "03:33 is outside every rule")
        var info = try await harness.engine.maintenance.systemInfo()
        XCTAssertEqual(info.rateLimitNow, 5000)
        XCTAssertEqual(info.rateLimitChangesAt, Date(timeIntervalSince1970: 2_000_000_000 + 1600))
        XCTAssertEqual(info.rateLimitNext, 1 << 20)

        try await waitForTimer(harness, in: 1600)
        harness.clock.advance(by: 1600)
        try await harness.eventually("1M at 04:00") { harness.fetch.rateLimit == 1 << 20 }
        info = try await harness.engine.maintenance.systemInfo()
        XCTAssertEqual(info.rateLimitNow, 1 << 20)
        XCTAssertEqual(info.rateLimitChangesAt, harness.clock.now.addingTimeInterval(3600))
        XCTAssertEqual(info.rateLimitNext, 5000)

        try await waitForTimer(harness, in: 3600)
        harness.clock.advance(by: 3600)
        try await harness.eventually("back to rate-limit at 05:00") { harness.fetch.rateLimit == 5000 }

        // 22:00 Wednesday to 02:00 Thursday, across midnight.
        try await waitForTimer(harness, in: 17 * 3600)
        harness.clock.advance(by: 17 * 3600)
        try await harness.eventually("unlimited at 22:00") { harness.fetch.rateLimit == 0 }
        try await waitForTimer(harness, in: 4 * 3600)
        info = try await harness.engine.maintenance.systemInfo()
        XCTAssertEqual(info.rateLimitChangesAt, harness.clock.now.addingTimeInterval(4 * 3600), "Thursday 02:00")
        harness.clock.advance(by: 4 * 3600)
        try await harness.eventually("rate-limit at 02:00 Thursday") { harness.fetch.rateLimit == 5000 }
        await harness.stop()
    }

    func testAChangeOfScheduleArmsTheTimerForItsOwnNextChange() async throws {
        let harness = try await makeHarness()
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "Wed 04:00-05:00 1M")])
        try await waitForTimer(harness, in: 1600)
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "Wed 03:40-03:50 2M")])
        try await waitForTimer(harness, in: 400)
        harness.clock.advance(by: 400)
        try await harness.eventually("2M at 03:40") { harness.fetch.rateLimit == 2 << 20 }
        try await waitForTimer(harness, in: 600)
        // The first schedule's timer still sleeps; when it fires, the schedule in force decides.
        harness.clock.advance(by: 1200)
        try await harness.eventually("rate-limit from 03:50 on, 04:00 being no change now") { harness.fetch.rateLimit == 5000 }
        let info = try await harness.engine.maintenance.systemInfo()
        XCTAssertEqual(info.rateLimitChangesAt, Date(timeIntervalSince1970: 2_000_000_000 + 7 * 86_400 + 400), "next Wednesday 03:40")
        await harness.stop()
    }

    func testAnEmptyScheduleNeverChangesTheLimit() async throws {
        let harness = try await makeHarness()
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "Wed 04:00-05:00 1M")])
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "")])
        let info = try await harness.engine.maintenance.systemInfo()
        XCTAssertNil(info.rateLimitChangesAt)
        XCTAssertEqual(info.rateLimitNow, 5000)
        await harness.stop()
    }

    func testTheScheduleIsReadInTheClocksTimeZone() async throws {
        let harness = try await makeHarness()
        // 03:33 UTC is 05:33 in Berlin (summer time).
        harness.clock.timeZone = TimeZone(identifier: "Europe/Berlin")!
        _ = try await harness.engine.setConfig([(key: "rate-schedule", value: "Wed 05:00-06:00 100K")])
        XCTAssertEqual(harness.fetch.rateLimit, 100 << 10)
        let info = try await harness.engine.maintenance.systemInfo()
        XCTAssertEqual(info.rateLimitChangesAt, Date(timeIntervalSince1970: 2_000_000_000 + 1600), "06:00 in Berlin is 04:00 UTC")
        await harness.stop()
    }

    func testAScheduleInTheConfigAtStartAppliesAtOnce() async throws {
        var config = DaemonConfig()
        config.rateLimit = 5000
        try config.set("rate-schedule", to: "Wed 03:00-04:00 100K")
        let harness = try await EngineHarness(config: config)
        XCTAssertEqual(harness.fetch.rateLimit, 100 << 10)
        try await waitForTimer(harness, in: 1600)
        await harness.stop()
    }

    func testADownloadsLimitGoesWithEachOfItsTransfers() async throws {
        let harness = try await makeHarness()
        let added = try await harness.engine.add(AddRequest(id: "slow", uri: EngineHarness.url("slow"), rateLimit: 1))
        try await harness.settle()
        XCTAssertEqual(added.download.rateLimit, 1)
        let transfer = try XCTUnwrap(harness.fetch.running.first)
        XCTAssertEqual(transfer.request.rateGroup, "slow")
        XCTAssertEqual(transfer.request.groupRateLimit, 1)
        try await harness.restart()
        let record = try await harness.record("slow")
        XCTAssertEqual(record.rateLimit, 1, "kept in the registry")
        do {
            _ = try await harness.engine.add(AddRequest(id: "bad", uri: EngineHarness.url("bad"), rateLimit: -1))
            XCTFail("a negative rate is refused")
        } catch let error as StashError {
            XCTAssertTrue(error.message.contains("rate_limit") && error.message.contains("-1"), error.message)
        }
        await harness.stop()
    }
}
