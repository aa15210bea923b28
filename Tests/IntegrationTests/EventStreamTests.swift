import Foundation
import StashClient
import StashTestSupport
import XCTest

/// The event stream under bursts: the daemon writes a burst of events without a flush per
/// event, and must never leave them unflushed while it waits for the socket to drain.
final class EventStreamTests: DaemonTestCase {
    func testABurstLargerThanTheSocketBufferArrivesWhole() async throws {
        let count = 600
        let events = try await client.events()
        // Long titles make each state event ~1.2 KB, so one group commit's events far exceed
        // the channel's 64 KiB high-water mark.
        let title = String(repeating: "t", count: 1000)
        _ = try await client.setConfig([(key: "max-parallel", value: "1")])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    _ = try await self.client.addDownload(AddDownloadRequest(id: "burst\(index)", uri: "http://127.0.0.1:9/x", title: title))
                }
            }
            try await group.waitForAll()
        }
        // The first of: every QUEUED event arrived, or 20 s passed (nil).
        let received = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                var queued = Set<String>()
                for try await event in events {
                    if case .stateChanged(let download, .notDownloaded) = event.kind { queued.insert(download.id) }
                    if queued.count == count { break }
                }
                return queued.count
            }
            group.addTask {
                try await Task.sleep(nanoseconds: 20_000_000_000)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        XCTAssertEqual(received, count, "nil: the events stopped coming")
    }
}
