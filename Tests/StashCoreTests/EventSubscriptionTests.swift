import Foundation
import StashCore
import StashTestSupport
import XCTest

final class EventSubscriptionTests: XCTestCase {
    /// When the events happen unless a test says otherwise: the pacing reads the events' own time.
    private static let time = Date(timeIntervalSince1970: 1_700_000_000)

    private func progress(_ id: String, _ percent: Int, seq: UInt64, at time: Date = EventSubscriptionTests.time) -> DownloadEvent {
        DownloadEvent(seq: seq, time: time, kind: .progress(ProgressUpdate(
            id: id, downloadedBytes: Int64(percent), totalBytes: 100, progressPercent: percent, speed: 0, remainingTime: nil)))
    }

    private func state(_ id: String, _ state: DownloadState, seq: UInt64) -> DownloadEvent {
        DownloadEvent(seq: seq, time: Self.time, kind: .stateChanged(Download(id: id, uri: "http://h/x", state: state, assetPath: "assets/\(id)/x"), previous: .queued))
    }

    func testSlowReaderSeesProgressCoalescedAndEveryStateChange() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0)
        subscription.deliver(state("a", .downloading, seq: 1))
        for percent in 1...50 { subscription.deliver(progress("a", percent, seq: UInt64(1 + percent))) }
        subscription.deliver(state("a", .completed, seq: 100))
        let seen = await drained(subscription)
        XCTAssertEqual(seen.map(\.seq), [1, 51, 100], "50 progress events coalesce into the latest")
    }

    /// The events of one delivery (a commit's) wake a parked reader once, for all of them: its
    /// batch holds them all, filtered and coalesced as one by one.
    func testADeliveryOfManyWakesTheReaderOnceForAll() async throws {
        let subscription = EventSubscription(ids: ["a", "b"], minProgressStep: 1, minInterval: 0)
        let reading = Task { await subscription.nextBatch(limit: 10) }
        let deadline = ContinuousClock.now + .seconds(10)
        // The reader parks as soon as its task runs; yielding lets it.
        while !subscription.hasParkedReader, ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertTrue(subscription.hasParkedReader)
        subscription.deliver([
            state("a", .downloading, seq: 10), progress("a", 5, seq: 11), state("c", .queued, seq: 12),
            progress("a", 6, seq: 13), state("b", .queued, seq: 14),
        ])
        let batch = await reading.value
        XCTAssertEqual(batch.map(\.seq), [10, 13, 14], "c is not subscribed to; a's progress coalesced into the latest")
        XCTAssertEqual(subscription.backlog, 0)
    }

    /// A batch is what waits, oldest first, up to its limit, coalesced as one by one; a
    /// reader waits for the first; an ended stream gives an empty batch once the rest is read.
    func testABatchTakesWhatWaitsInOrderUpToItsLimit() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0)
        subscription.deliver(state("a", .downloading, seq: 1))
        for percent in 1...3 { subscription.deliver(progress("a", percent, seq: UInt64(1 + percent))) }
        subscription.deliver(state("b", .queued, seq: 5))
        subscription.deliver(state("a", .completed, seq: 6))
        var batch = await subscription.nextBatch(limit: 3)
        XCTAssertEqual(batch.map(\.seq), [1, 4, 5], "the three progress events coalesced into the latest")
        XCTAssertEqual(subscription.backlog, 1)
        batch = await subscription.nextBatch(limit: 3)
        XCTAssertEqual(batch.map(\.seq), [6])
        let waiting = Task { await subscription.nextBatch(limit: 3) }
        subscription.deliver(state("c", .queued, seq: 7))
        let woken = await waiting.value
        XCTAssertEqual(woken.map(\.seq), [7])
        subscription.deliver(state("c", .paused, seq: 8))
        subscription.finish()
        let last = await subscription.nextBatch(limit: 1)
        XCTAssertEqual(last.map(\.seq), [8])
        let ended = await subscription.nextBatch(limit: 3)
        XCTAssertEqual(ended.map(\.seq), [])
    }

    /// An in-process reader that wants a few kinds of event (the desktop notices) is handed
    /// those alone: the others are not queued, so they do not wake it.
    func testASubscriptionThatAcceptsSomeEventsQueuesThoseAlone() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0, accepts: { event in
            guard case .stateChanged(let download, _) = event.kind else { return false }
            return download.state == .completed
        })
        subscription.deliver(state("a", .downloading, seq: 1))
        subscription.deliver(progress("a", 40, seq: 2))
        subscription.deliver(state("a", .completed, seq: 3))
        subscription.deliver(state("b", .queued, seq: 4))
        XCTAssertEqual(subscription.backlog, 1, "the start, the progress and the other add are not queued")
        subscription.deliver(state("b", .completed, seq: 5))
        let seen = await drained(subscription)
        XCTAssertEqual(seen.map(\.seq), [3, 5])
    }

    func testAnExportsProgressCoalescesPerFileAndLeavesTheDownloadsOwnAlone() async {
        let subscription = EventSubscription(ids: ["a"], minProgressStep: 50, minInterval: 3600)
        func export(_ file: String, _ percent: Int, seq: UInt64) -> DownloadEvent {
            DownloadEvent(seq: seq, time: Self.time, kind: .exportProgress(ExportProgress(
                id: "a", file: file, bytesDone: Int64(percent), bytesTotal: 100, progressPercent: percent)))
        }
        subscription.deliver(progress("a", 10, seq: 1))
        // Not paced by the subscription's step or interval: the export paces itself.
        for percent in 0...40 { subscription.deliver(export("/x.mkv", percent, seq: UInt64(2 + percent))) }
        subscription.deliver(export("/y.mp4", 7, seq: 50))
        subscription.deliver(export("/x.mkv", 100, seq: 51))
        subscription.deliver(export("/z.mp4", 1, seq: 52))
        let seen = await drained(subscription)
        XCTAssertEqual(seen.map(\.seq), [1, 50, 51, 52], "the latest of each file, in seq order")
    }

    /// A newer progress event replaces the waiting one at the end of the queue, not in its
    /// place: there it would overtake the events between them, and a reader that skips what is
    /// older than the last seq it saw (the CLI's `DownloadTracker`) dropped a bundle's
    /// COMPLETED that way, so `stash wait` waited for ever.
    func testAReplacedProgressEventNeverOvertakesTheEventsQueuedBeforeIt() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0)
        subscription.deliver(progress("a", 10, seq: 1))
        subscription.deliver(state("b", .completed, seq: 2))
        subscription.deliver(progress("a", 20, seq: 3))
        subscription.deliver(state("a", .completed, seq: 4))
        let seen = await drained(subscription)
        XCTAssertEqual(seen.map(\.seq), [2, 3, 4])
    }

    /// Progress coming far faster than it is read keeps one event per download waiting, and
    /// the replaced ones do not pile up behind it.
    func testProgressFasterThanTheReaderKeepsOneEventAndABoundedQueue() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0, maxBacklog: 8)
        subscription.deliver(state("a", .downloading, seq: 1))
        for seq in UInt64(2)...100_001 {
            subscription.deliver(progress(seq % 2 == 0 ? "a" : "b", Int(seq % 100), seq: seq))
        }
        XCTAssertEqual(subscription.backlog, 3, "the state change and the latest progress of a and of b")
        let seen = await drained(subscription)
        XCTAssertEqual(seen.map(\.seq), [1, 100_000, 100_001])
    }

    func testASubscriberThatStopsReadingKeepsAtMostItsBacklogAndLearnsWhatItLost() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0, maxBacklog: 4)
        for seq in UInt64(1)...10 {
            subscription.deliver(state("d\(seq)", .queued, seq: seq))
            XCTAssertLessThanOrEqual(subscription.backlog, 4)
        }
        let seen = await drained(subscription)
        XCTAssertEqual(seen.count, 2)
        guard case .eventsLost(let lost) = seen.first?.kind else { return XCTFail("expected eventsLost first, got \(seen)") }
        XCTAssertEqual(lost, EventsLost(firstSeq: 1, lastSeq: 9, count: 9), "two overflows merge into one notice")
        XCTAssertEqual(seen.last?.seq, 10, "the stream goes on after the notice")
    }

    func testAfterLostEventsTheNextProgressOfADownloadIsShown() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 50, minInterval: 3600, maxBacklog: 2)
        subscription.deliver(progress("a", 10, seq: 1))
        _ = await nextEvent(subscription)
        for seq in UInt64(2)...5 { subscription.deliver(state("b\(seq)", .queued, seq: seq)) }
        subscription.deliver(progress("a", 12, seq: 6))
        let seqs = await drained(subscription).map(\.seq)
        XCTAssertEqual(seqs.last, 6, "pacing restarts after a loss, so a 2 % step still shows")
    }

    func testFiltersByID() async {
        let subscription = EventSubscription(ids: ["b"], minProgressStep: 1, minInterval: 0)
        subscription.deliver(state("a", .queued, seq: 1))
        subscription.deliver(state("b", .queued, seq: 2))
        let seen = await drained(subscription).map(\.seq)
        XCTAssertEqual(seen, [2])
    }

    func testProgressStepIsHonouredForAReaderThatKeepsUp() async {
        let subscription = EventSubscription(ids: [], minProgressStep: 10, minInterval: 3600)
        var seen: [Int] = []
        for percent in [1, 2, 5, 11, 12, 25] {
            subscription.deliver(progress("a", percent, seq: UInt64(percent)))
            if subscription.backlog > 0, let event = await nextEvent(subscription), case .progress(let update) = event.kind {
                seen.append(update.progressPercent)
            }
        }
        XCTAssertEqual(seen, [1, 11, 25])
    }

    func testWaitingReaderIsWokenAndCancelEnds() async throws {
        let subscription = EventSubscription(ids: [], minProgressStep: 1, minInterval: 0)
        let reader = Task { () -> [UInt64] in
            var seqs: [UInt64] = []
            for await event in subscription { seqs.append(event.seq) }
            return seqs
        }
        // Time for the reader to park, so the delivery usually wakes it; if it is late, it
        // takes the event from the queue instead.
        try? await Task.sleep(nanoseconds: 50_000_000)
        subscription.deliver(state("a", .queued, seq: 7))
        // A cancel drops what is still queued: it comes once the reader has the event.
        try await eventually("the reader to take the event") { subscription.backlog == 0 }
        subscription.cancel()
        let seqs = await reader.value
        XCTAssertEqual(seqs, [7])
    }

    private func nextEvent(_ subscription: EventSubscription) async -> DownloadEvent? {
        var iterator = subscription.makeAsyncIterator()
        return await iterator.next()
    }

    /// Ends `subscription` and reads what it still holds, in order.
    private func drained(_ subscription: EventSubscription) async -> [DownloadEvent] {
        subscription.finish()
        var events: [DownloadEvent] = []
        for await event in subscription { events.append(event) }
        return events
    }
}
