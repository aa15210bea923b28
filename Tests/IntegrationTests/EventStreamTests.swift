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
        let client: StashClient = self.client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    _ = try await client.addDownload(AddDownloadRequest(id: "burst\(index)", uri: "http://127.0.0.1:9/x", title: title, force: true))
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

/// A subscriber that stops reading costs the daemon a bounded backlog, then learns what it
/// lost and resyncs by sequence number.
final class EventBacklogTests: DaemonTestCase {
    func testASubscriberThatStopsReadingIsToldWhatItLostAndCanReplayIt() async throws {
        let subscriber = try RawSocket(path: daemon.socketPath)
        subscriber.send(Request(id: 1, op: .hello(HelloRequest(clientName: "slow"))))
        _ = try subscriber.readResponse()
        subscriber.send(Request(id: 2, op: .subscribe(SubscribeRequest())))
        XCTAssertNotNil(try subscriber.readResponse().result.success)

        // ~1.2 KB per event: the socket buffers and NIO's 64 KiB hold a few hundred, the
        // subscription 1,024 more, so 1,600 QUEUED events overflow it.
        let title = String(repeating: "t", count: 1000)
        // A head download holds the one slot, stalled: the others stay QUEUED and send no
        // more events (a download retrying a refused connection would give the slot up).
        var stalled = TestRoute(body: .pattern(size: 100_000, seed: 1))
        stalled.stallAfterBytes = 1000
        stalled.stallTimes = 1
        http.serve(path: "/head", route: stalled)
        _ = try await client.setConfig([(key: "max-parallel", value: "1"), (key: "low-speed-time", value: "600")])
        _ = try await client.addDownload(AddDownloadRequest(id: "head", uri: http.url("/head")))
        _ = try await waitFor("head", .downloading)
        for index in 0..<1600 {
            _ = try await client.addDownload(AddDownloadRequest(id: "slow\(index)", uri: "http://127.0.0.1:9/x", title: title, force: true))
        }

        var lost: EventsLost?
        var afterLoss: [UInt64] = []
        var previous: UInt64 = 0
        while afterLoss.count < 3 {
            guard case .event(let event) = try subscriber.readMessage() else { continue }
            XCTAssertGreaterThan(event.seq, previous, "events arrive in order")
            previous = event.seq
            if case .eventsLost(let notice) = event.kind {
                lost = notice
            } else if lost != nil {
                afterLoss.append(event.seq)
            }
        }
        let notice = try XCTUnwrap(lost, "a subscriber that did not read was never told it lost events")
        XCTAssertLessThanOrEqual(notice.firstSeq, notice.lastSeq)
        XCTAssertGreaterThan(notice.count, 0)
        XCTAssertGreaterThan(afterLoss[0], notice.lastSeq, "the stream goes on after the lost events")

        // Resync as PROTOCOL.md says: subscribe again replaying from the first lost event.
        let events = try await client.events(replayFromSeq: notice.firstSeq)
        var iterator = events.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first?.seq, notice.firstSeq, "the daemon still holds the lost events for replay")
    }
}
