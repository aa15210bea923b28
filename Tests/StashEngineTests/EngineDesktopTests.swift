import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// The desktop's facts (a metered network, battery power) as inputs of the engine, on the
/// harness: which downloads wait, with what reason, and what goes on when a fact changes.
final class EngineDesktopTests: XCTestCase {
    private func harness(network: NetworkRequirement = .any, onBattery: BatteryPolicy = .continue) async throws -> EngineHarness {
        var config = DaemonConfig()
        config.network = network
        config.onBattery = onBattery
        return try await EngineHarness(config: config)
    }

    private func desktop(_ harness: EngineHarness, metered: Bool = false, onBattery: Bool = false) async throws {
        await harness.engine.desktopChanged(DesktopConditions(metered: metered, onBattery: onBattery))
        try await harness.settle()
    }

    func testAnUnmeteredOnlyDownloadWaitsOnAMeteredNetworkAndGoesOnWhenItChanges() async throws {
        let harness = try await harness(network: .unmetered)
        try await desktop(harness, metered: true)
        try await harness.add("a")
        var record = try await harness.record("a")
        XCTAssertEqual(record.state, .waitingForNetwork)
        XCTAssertEqual(record.stateReason, "waiting for an unmetered network")
        XCTAssertEqual(harness.fetch.started, [], "no transfer while metered")

        try await desktop(harness, metered: false)
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("a")])
        try await harness.complete(EngineHarness.url("a"))
        record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        await harness.stop()
    }

    func testADownloadAllowedOnAnyNetworkRunsWhileMetered() async throws {
        let harness = try await harness()
        try await desktop(harness, metered: true)
        try await harness.add("a")
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("a")])
        await harness.stop()
    }

    func testARunningDownloadStopsItsTransferKeepingItsBytesWhenTheNetworkBecomesMetered() async throws {
        let harness = try await harness(network: .unmetered)
        try await harness.add("a")
        let url = EngineHarness.url("a")
        guard let transfer = harness.fetch.transfer(url) else { return XCTFail("no transfer of \(url)") }
        harness.fetch.respond(url, total: 1000)
        // What the transfer wrote so far.
        let part = transfer.request.finalPath + ".part"
        try FileManager.default.createDirectory(atPath: (part as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: part, contents: Data(count: 300)))
        try await harness.settle()

        try await desktop(harness, metered: true)
        XCTAssertEqual(harness.fetch.stopped, [url])
        var record = try await harness.record("a")
        XCTAssertEqual(record.state, .waitingForNetwork)
        XCTAssertEqual(record.stateReason, "waiting for an unmetered network")
        XCTAssertEqual(record.downloadedBytes, 300)
        XCTAssertTrue(FileManager.default.fileExists(atPath: part), "the part file stays")

        try await desktop(harness, metered: false)
        XCTAssertEqual(harness.fetch.started, [url, url])
        record = try await harness.record("a")
        XCTAssertEqual(record.state, .preparing)
        await harness.stop()
    }

    func testOnBatteryPauseWaitsForACPower() async throws {
        let harness = try await harness(onBattery: .pause)
        try await desktop(harness, onBattery: true)
        try await harness.add("a")
        var record = try await harness.record("a")
        XCTAssertEqual(record.state, .waitingForNetwork)
        XCTAssertEqual(record.stateReason, "waiting for AC power")
        // Metered too, with network any: still the battery it waits for.
        try await desktop(harness, metered: true, onBattery: true)
        try await desktop(harness, metered: true, onBattery: false)
        record = try await harness.record("a")
        XCTAssertEqual(record.state, .preparing)
        await harness.stop()
    }

    func testTheWaitingReasonFollowsTheFactThatHolds() async throws {
        let harness = try await harness(network: .unmetered, onBattery: .pause)
        try await desktop(harness, metered: true, onBattery: true)
        try await harness.add("a")
        var record = try await harness.record("a")
        XCTAssertEqual(record.stateReason, "waiting for an unmetered network")
        try await desktop(harness, metered: false, onBattery: true)
        record = try await harness.record("a")
        XCTAssertEqual(record.state, .waitingForNetwork)
        XCTAssertEqual(record.stateReason, "waiting for AC power")
        XCTAssertEqual(harness.fetch.started, [])
        await harness.stop()
    }

    func testAConfigChangeToAnyNetworkLetsAWaitingDownloadGoOn() async throws {
        let harness = try await harness(network: .unmetered)
        try await desktop(harness, metered: true)
        try await harness.add("a")
        _ = try await harness.engine.setConfig([(key: "network", value: "any")])
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("a")])
        await harness.stop()
    }

    func testAPausedDownloadStaysPausedWhenTheNetworkIsNoLongerMetered() async throws {
        let harness = try await harness(network: .unmetered)
        try await desktop(harness, metered: true)
        try await harness.add("a")
        _ = try await harness.engine.pause(id: "a")
        try await desktop(harness, metered: false)
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .paused)
        XCTAssertEqual(harness.fetch.started, [])
        _ = try await harness.engine.resume(id: "a")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("a")])
        await harness.stop()
    }
}

/// A download's own rules in place of the config's: the Media3 users' "allow cellular for this
/// one download".
final class EngineDesktopRuleTests: XCTestCase {
    func testADownloadAllowedOnAnyNetworkRunsWhileTheConfigWantsUnmetered() async throws {
        var config = DaemonConfig()
        config.network = .unmetered
        let harness = try await EngineHarness(config: config)
        await harness.engine.desktopChanged(DesktopConditions(metered: true))
        _ = try await harness.engine.add(AddRequest(id: "this-one", uri: EngineHarness.url("this-one"), network: .any))
        try await harness.add("other")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("this-one")])
        let other = try await harness.record("other")
        XCTAssertEqual(other.stateReason, "waiting for an unmetered network")
        var mine = try await harness.record("this-one")
        XCTAssertEqual(mine.network, .any)

        // The rule kept across a restart, the other given its own later.
        try await harness.restart()
        mine = try await harness.record("this-one")
        XCTAssertEqual(mine.network, .any)
        await harness.engine.desktopChanged(DesktopConditions(metered: true))
        try await harness.settle()
        _ = try await harness.engine.set(DownloadChanges(id: "other", network: .any))
        try await harness.settle()
        XCTAssertEqual(Set(harness.fetch.runningURLs), [EngineHarness.url("this-one"), EngineHarness.url("other")])
        await harness.stop()
    }

    func testARunningDownloadGivenUnmeteredWaitsAtOnce() async throws {
        let harness = try await EngineHarness()
        await harness.engine.desktopChanged(DesktopConditions(metered: true, onBattery: true))
        try await harness.add("a")
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("a")])
        let changed = try await harness.engine.set(DownloadChanges(id: "a", onBattery: .pause))
        XCTAssertEqual(changed.onBattery, .pause)
        try await harness.settle()
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .waitingForNetwork)
        XCTAssertEqual(record.stateReason, "waiting for AC power")
        XCTAssertEqual(harness.fetch.stopped, [EngineHarness.url("a")])
        await harness.stop()
    }
}
