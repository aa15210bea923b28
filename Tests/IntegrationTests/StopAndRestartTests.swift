import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// STOPPED (an app's own stop, with its reason) and RESTARTING (a transfer that starts over
/// from byte 0) are states clients see, with their reasons.
final class StopAndRestartTests: DaemonTestCase {
    func testAStopKeepsTheAppsReasonUntilAResume() async throws {
        http.serve(path: "/stop.bin", size: 3_000_000, etag: "\"s\"")
        http.update(path: "/stop.bin") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "s", uri: http.url("/stop.bin")))
        _ = try await waitUntil("s") { $0.downloadedBytes > 0 }
        let events = try await client.events(ids: ["s"])

        let stopped = try await client.stop(id: "s", reason: "metered network: waiting for Wi-Fi")
        XCTAssertEqual(stopped.state, .stopped)
        XCTAssertEqual(stopped.stateReason, "metered network: waiting for Wi-Fi")
        var told: Download?
        for try await event in events {
            if case .stateChanged(let download, _) = event.kind { told = download; break }
        }
        XCTAssertEqual(told?.state, .stopped)
        XCTAssertEqual(told?.stateReason, "metered network: waiting for Wi-Fi")
        await assertFails(.failedPrecondition) { try await self.client.pause(id: "s") }
        // A bulk resume leaves an app's stops alone.
        _ = try await client.resumeAll()
        let still = try await client.getDownload(id: "s")
        XCTAssertEqual(still.state, .stopped)
        let longReason = String(repeating: "r", count: 1025)
        let refused = await assertFails(.invalidArgument) { try await self.client.stop(id: "s", reason: longReason) }
        XCTAssertTrue(refused?.message.contains("1025") ?? false, refused?.message ?? "")

        http.update(path: "/stop.bin") { $0.bytesPerSecond = nil }
        _ = try await client.resume(id: "s")
        let done = try await waitFor("s", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/stop.bin")!.body.sha256Hex)
    }

    func testAServerThatIgnoresTheRangeShowsRestartingWithTheReason() async throws {
        http.serve(path: "/again.bin", size: 3_000_000, etag: "\"a\"")
        http.update(path: "/again.bin") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "a", uri: http.url("/again.bin")))
        _ = try await waitUntil("a") { $0.downloadedBytes > 100_000 }
        _ = try await client.pause(id: "a")
        http.update(path: "/again.bin") { route in
            route.honourRange = false
            route.bytesPerSecond = 2_000_000
        }
        let events = try await client.events(ids: ["a"])
        _ = try await client.resume(id: "a")
        var states: [DownloadState] = []
        var restartReason = ""
        for try await event in events {
            guard case .stateChanged(let download, _) = event.kind else { continue }
            states.append(download.state)
            if download.state == .restarting { restartReason = download.stateReason }
            if download.state.isTerminal { break }
        }
        XCTAssertTrue(states.contains(.restarting), "\(states)")
        XCTAssertTrue(restartReason.contains("starting over from byte 0"), restartReason)
        XCTAssertEqual(states.last, .completed, "\(states)")
        if let restarting = states.firstIndex(of: .restarting) {
            XCTAssertEqual(states.dropFirst(restarting + 1).first, .downloading, "\(states)")
        }
    }
}
