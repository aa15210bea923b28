@testable import stash
import Foundation
import StashClient
import XCTest

/// What `wait` and `watch` show, fed the events a daemon sends: never back in time.
final class DownloadTrackerTests: XCTestCase {
    /// When the events were sent; the tracker orders them by sequence, not by time.
    private static let time = Date(timeIntervalSince1970: 1_700_000_000)

    private func record(_ state: DownloadState, bytes: Int64 = 0, speed: Int64 = 0) -> Download {
        Download(id: "b", uri: "", state: state, downloadedBytes: bytes, totalBytes: 1000, speed: speed, assetPath: "/a/b")
    }

    private func changed(_ seq: UInt64, _ previous: DownloadState, _ state: DownloadState) -> DownloadEvent {
        DownloadEvent(seq: seq, time: Self.time, kind: .stateChanged(record(state), previous: previous))
    }

    private func progress(_ seq: UInt64, bytes: Int64, speed: Int64) -> DownloadEvent {
        DownloadEvent(seq: seq, time: Self.time, kind: .progress(ProgressUpdate(
            id: "b", downloadedBytes: bytes, totalBytes: 1000, progressPercent: Int(bytes / 10), speed: speed, remainingTime: nil)))
    }

    /// The case of the issue: `add --wait` read PREPARING while the stream still held the add's
    /// QUEUED and the change to PREPARING; they printed after it, going back to QUEUED.
    func testEventsOlderThanTheSnapshotAreSkipped() {
        var tracker = DownloadTracker()
        tracker.set(record(.preparing))
        XCTAssertNil(tracker.apply(changed(1, .notDownloaded, .queued)))
        XCTAssertNil(tracker.apply(changed(2, .queued, .preparing)))
        XCTAssertEqual(tracker.apply(changed(3, .preparing, .downloading))?.state, .downloading)
        XCTAssertEqual(tracker.apply(changed(4, .downloading, .completed))?.state, .completed)
        XCTAssertEqual(tracker.records["b"]?.state, .completed)
    }

    /// The record an add answered is the download's first: whatever the stream holds of it is
    /// newer, even an outcome alone (a stream of outcomes, with no step on the way).
    func testAnOutcomeAppliesAtOnceAfterTheFirstRecord() {
        var tracker = DownloadTracker()
        tracker.set(record(.queued), first: true)
        XCTAssertEqual(tracker.apply(changed(7, .downloading, .completed))?.state, .completed)
        var later = DownloadTracker()
        later.set(record(.queued))
        XCTAssertNil(later.apply(changed(7, .downloading, .completed)), "a record read later may be newer than the outcome")
    }

    func testOnceInStepEveryChangeApplies() {
        var tracker = DownloadTracker()
        tracker.set(record(.queued))
        // Back to QUEUED is a real change here (a lowered max-parallel), not a stale one.
        let states: [(DownloadState, DownloadState)] = [(.queued, .preparing), (.preparing, .queued), (.queued, .preparing), (.preparing, .downloading)]
        for (index, (previous, state)) in states.enumerated() {
            XCTAssertEqual(tracker.apply(changed(UInt64(index + 10), previous, state))?.state, state)
        }
    }

    func testProgressFromBeforeTheSnapshotDoesNotTakeBytesBack() {
        var tracker = DownloadTracker()
        tracker.set(record(.downloading, bytes: 600, speed: 50))
        XCTAssertNil(tracker.apply(progress(5, bytes: 400, speed: 50)))
        XCTAssertEqual(tracker.apply(progress(6, bytes: 700, speed: 60))?.downloadedBytes, 700)
        XCTAssertNil(tracker.apply(progress(6, bytes: 800, speed: 60)), "a seq seen already")
    }

    /// After a pause a report sent before it may still arrive: its bytes count, its speed not.
    func testAPausedDownloadShowsNoSpeed() throws {
        var tracker = DownloadTracker()
        tracker.set(record(.downloading, bytes: 100, speed: 50))
        XCTAssertEqual(tracker.apply(changed(2, .downloading, .paused))?.state, .paused)
        let late = try XCTUnwrap(tracker.apply(progress(3, bytes: 150, speed: 50)))
        XCTAssertEqual(late.downloadedBytes, 150)
        XCTAssertEqual(late.speed, 0)
        XCTAssertNil(late.remainingTime)
    }

    func testARemovedDownloadIsNoted() {
        var tracker = DownloadTracker()
        tracker.set(record(.downloading))
        XCTAssertNil(tracker.apply(DownloadEvent(seq: 1, time: Self.time, kind: .removed(id: "b"))))
        XCTAssertEqual(tracker.removed, ["b"])
    }
}
