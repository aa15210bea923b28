import Foundation
import StashCore
import StashStore
import XCTest

@testable import StashEngine

/// The engine's rules on a real engine and registry with the fetch service faked
/// (`EngineHarness`): which download runs when, what a transfer's report does, what the
/// crash guard keeps from starting. No network and no sleeping: each runs in milliseconds.
final class EngineSchedulingTests: XCTestCase {
    private func config(_ edit: (inout DaemonConfig) -> Void) -> DaemonConfig {
        var config = DaemonConfig()
        edit(&config)
        return config
    }

    func testMaxParallelRunsTheOldestQueuedDownloadsFirst() async throws {
        let harness = try await EngineHarness(config: config { $0.maxParallel = 2 })
        for id in ["a", "b", "c", "d", "e"] { try await harness.add(id) }
        XCTAssertEqual(harness.fetch.runningURLs, ["a", "b"].map { EngineHarness.url($0) })
        let waiting = try await harness.record("c")
        XCTAssertEqual(waiting.state, .queued)

        try await harness.complete(EngineHarness.url("a"))
        harness.fetch.fail(EngineHarness.url("b"))
        try await harness.settle()
        _ = try await harness.engine.pause(id: "c")
        try await harness.settle()

        XCTAssertEqual(harness.fetch.started, ["a", "b", "c", "d", "e"].map { EngineHarness.url($0) }, "first in, first out")
        XCTAssertEqual(harness.fetch.runningURLs, ["d", "e"].map { EngineHarness.url($0) }, "never more than max-parallel at once")
        XCTAssertEqual(harness.fetch.stopped, [EngineHarness.url("c")], "the paused download's transfer is stopped")
        let states = try await ["a", "b", "c", "d"].asyncMap { try await harness.stateOf($0) }
        XCTAssertEqual(states, [.completed, .failed, .paused, .preparing])
        await harness.stop()
    }

    /// A bundle of 8 files over two hosts: at most 3 transfers in all, 2 per host, 4 per
    /// download, whatever completes in which order; every file is fetched once.
    func testTheConnectionCapsHoldWhileABundleTransfers() async throws {
        let harness = try await EngineHarness(config: config {
            $0.filesPerDownload = 4
            $0.maxConnections = 3
            $0.maxConnectionsPerHost = 2
        })
        let urls = (0..<8).map { EngineHarness.url("p\($0)", host: $0 % 2 == 0 ? "even.test" : "odd.test") }
        try await harness.addBundle("book", urls: urls)
        var completed = 0
        while let next = harness.fetch.running.last {
            let running = harness.fetch.runningURLs
            XCTAssertLessThanOrEqual(running.count, 3, "\(running)")
            for host in ["even.test", "odd.test"] {
                XCTAssertLessThanOrEqual(running.filter { $0.contains(host) }.count, 2, "\(running)")
            }
            try await harness.complete(next.request.url, bytes: 100)
            completed += 1
        }
        XCTAssertEqual(completed, 8)
        XCTAssertEqual(Set(harness.fetch.started), Set(urls))
        XCTAssertEqual(harness.fetch.started.count, 8, "no file is fetched twice")
        try await harness.eventually("the bundle completes once its folders are synced") {
            try await harness.stateOf("book") == .completed
        }
        await harness.stop()
    }

    /// A retry is shown with its reason; the final failure fails the download naming the
    /// error; a resume starts a new transfer, and a late event of the old one changes nothing.
    func testARetryIsShownAFailureFailsAndALateEventOfTheOldTransferIsIgnored() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("r")
        try await harness.add("r")
        harness.fetch.respond(url, total: 5000)
        harness.fetch.send(url, .retryLater(attempt: 1, delayMs: 500, error: DownloadError(.network, "connection reset")))
        try await harness.settle()
        let retrying = try await harness.record("r")
        XCTAssertEqual(retrying.state, .queued, "it waits for its retry without a slot")
        XCTAssertEqual(retrying.stateReason, "retrying in 500 ms after attempt 1: connection reset")
        XCTAssertEqual(harness.fetch.started, [url], "not before its backoff is over")

        harness.clock.advance(by: 0.5)
        try await harness.eventually("the retry starts once 500 ms passed") { harness.fetch.started == [url, url] }
        let again = try XCTUnwrap(harness.fetch.transfer(url))
        XCTAssertEqual(again.request.attemptsBefore, 1, "the attempts add up across transfers")
        XCTAssertEqual(again.request.delayMs, 0)
        XCTAssertTrue(again.request.retriesOutside)

        harness.fetch.fail(url, "HTTP 503 after 3 attempts")
        try await harness.settle()
        let failed = try await harness.record("r")
        XCTAssertEqual(failed.state, .failed)
        XCTAssertEqual(failed.error?.message, "HTTP 503 after 3 attempts")

        _ = try await harness.engine.resume(id: "r")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.started, [url, url, url], "a resume starts the transfer again")
        XCTAssertEqual(harness.fetch.transfer(url)?.request.attemptsBefore, 0, "a resume begins the attempts afresh")
        again.events(.completed(bytes: 5000, sha256: ""))
        try await harness.settle()
        let stillRunning = try await harness.record("r")
        XCTAssertEqual(stillRunning.state, .preparing, "the earlier transfer's late completion is not this transfer's")
        await harness.stop()
    }

    /// A download retrying a host that is down gives its slot to the next in the queue for its
    /// backoff, and gets the next free slot once the backoff is over, before those added after it.
    func testADownloadWaitingToRetryHoldsNoSlot() async throws {
        let harness = try await EngineHarness(config: config { $0.maxParallel = 1 })
        for id in ["dead", "b", "c"] { try await harness.add(id) }
        let dead = EngineHarness.url("dead")
        harness.fetch.send(dead, .retryLater(attempt: 1, delayMs: 7000, error: DownloadError(.network, "connection refused")))
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("b")], "the next download runs during the backoff")
        try await harness.complete(EngineHarness.url("b"))
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("c")], "and the one after it")
        let waiting = try await harness.record("dead")
        XCTAssertEqual(waiting.state, .queued)

        harness.clock.advance(by: 7)
        // The timer's wake-up runs on a task of its own: waited for, not assumed. Its time
        // came with the slot taken: the reason no longer counts down.
        try await harness.eventually("its reason says it waits for a slot") {
            try await harness.record("dead").stateReason == "retrying after attempt 1 once a slot frees: connection refused"
        }
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("c")])
        try await harness.complete(EngineHarness.url("c"))
        try await harness.eventually("its backoff over, it runs again") { harness.fetch.runningURLs == [dead] }
        XCTAssertEqual(harness.fetch.transfer(dead)?.request.attemptsBefore, 1)
        try await harness.complete(dead)
        let states = try await ["dead", "b", "c"].asyncMap { try await harness.stateOf($0) }
        XCTAssertEqual(states, [.completed, .completed, .completed])
        await harness.stop()
    }

    /// A paused download waiting for its retry does not start when the backoff ends; resumed,
    /// it starts at once.
    func testAPausedRetryDoesNotStartAtItsTime() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("p")
        try await harness.add("p")
        harness.fetch.send(url, .retryLater(attempt: 2, delayMs: 1000, error: DownloadError(.network, "timed out")))
        try await harness.settle()
        _ = try await harness.engine.pause(id: "p")
        harness.clock.advance(by: 1)
        try await harness.eventually("the retry's timer woke") { harness.clock.sleeperCount == 0 }
        let paused = try await harness.record("p")
        XCTAssertEqual(paused.state, .paused)
        XCTAssertEqual(harness.fetch.started, [url])
        _ = try await harness.engine.resume(id: "p")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.started, [url, url])
        XCTAssertEqual(harness.fetch.transfer(url)?.request.attemptsBefore, 0)
        await harness.stop()
    }

    /// A bundle's file waiting to retry leaves the transfer slots to the download's other files
    /// until its time; once nothing else of the bundle transfers, the bundle gives up its
    /// download slot to the next download until its earliest retry is due.
    func testABundlesFilesWaitingToRetryHoldNoSlot() async throws {
        let harness = try await EngineHarness(config: config {
            $0.maxParallel = 1
            $0.filesPerDownload = 2
        })
        let urls = (0..<3).map { EngineHarness.url("page\($0)") }
        try await harness.addBundle("book", urls: urls)
        try await harness.add("next")
        XCTAssertEqual(harness.fetch.runningURLs, Array(urls[0..<2]))
        harness.fetch.send(urls[0], .retryLater(attempt: 1, delayMs: 2000, error: DownloadError(.http, "HTTP 503")))
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [urls[1], urls[2]], "the next file takes the slot of the one waiting to retry")

        try await harness.complete(urls[1])
        XCTAssertEqual(harness.fetch.runningURLs, [urls[2]], "not before its time, though a transfer slot is free")
        harness.clock.advance(by: 2)
        try await harness.eventually("its time come, it takes the free transfer slot") { harness.fetch.transfer(urls[0]) != nil }
        let retried = try XCTUnwrap(harness.fetch.transfer(urls[0]))
        XCTAssertEqual(retried.request.attemptsBefore, 1)
        XCTAssertEqual(retried.request.delayMs, 0)

        harness.fetch.send(urls[2], .retryLater(attempt: 1, delayMs: 5000, error: DownloadError(.http, "HTTP 503")))
        harness.fetch.send(urls[0], .retryLater(attempt: 2, delayMs: 4000, error: DownloadError(.http, "HTTP 503")))
        try await harness.settle()
        let waiting = try await harness.record("book")
        XCTAssertEqual(waiting.state, .queued, "nothing of it transfers: its slot goes to the next download")
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("next")])

        harness.clock.advance(by: 4)
        try await harness.complete(EngineHarness.url("next"))
        try await harness.eventually("at its earliest retry's time it runs again, with both files") {
            Set(harness.fetch.runningURLs) == [urls[0], urls[2]]
        }
        XCTAssertEqual(harness.fetch.transfer(urls[0])?.request.attemptsBefore, 2)
        XCTAssertEqual(harness.fetch.transfer(urls[2])?.request.delayMs, 1000, "the later one waits out the rest of its backoff")
        try await harness.complete(urls[0])
        try await harness.complete(urls[2])
        try await harness.eventually("the bundle completes") { try await harness.stateOf("book") == .completed }
        await harness.stop()
    }

    /// The last file still transferring completes while another waits to retry: the bundle
    /// gives up its slot then, not only when a failure leaves nothing running.
    func testABundleWhoseLastTransferCompletesGivesUpItsSlotWhileAFileWaitsToRetry() async throws {
        let harness = try await EngineHarness(config: config {
            $0.maxParallel = 1
            $0.filesPerDownload = 2
        })
        let urls = (0..<2).map { EngineHarness.url("part\($0)") }
        try await harness.addBundle("pair", urls: urls)
        try await harness.add("next")
        harness.fetch.send(urls[0], .retryLater(attempt: 1, delayMs: 3000, error: DownloadError(.network, "connection reset")))
        try await harness.settle()
        let running = try await harness.record("pair")
        XCTAssertTrue(running.state.isActive, "its other file still transfers")
        try await harness.complete(urls[1])
        let waiting = try await harness.record("pair")
        XCTAssertEqual(waiting.state, .queued)
        XCTAssertEqual(harness.fetch.runningURLs, [EngineHarness.url("next")])
        await harness.stop()
    }

    /// A retry's numbers at their extremes: the delay is held to a day, a negative one is
    /// none, and the next request carries counts the fetch service can take.
    func testARetrysExtremeNumbersAreHeldInRange() async throws {
        let harness = try await EngineHarness(config: config { $0.maxParallel = 4 })
        for (id, attempt, delay) in [("max", Int.max, Int.max), ("min", Int.min, Int.min), ("neg", -1, -1), ("zero", 0, 0)] {
            try await harness.add(id)
            harness.fetch.send(EngineHarness.url(id), .retryLater(attempt: attempt, delayMs: delay, error: DownloadError(.network, "reset")))
            try await harness.settle()
        }
        let longest = try await harness.record("max")
        XCTAssertEqual(longest.state, .queued)
        XCTAssertTrue(longest.stateReason.hasPrefix("retrying in \(Int.max) ms"), longest.stateReason)
        try await harness.eventually("no delay is none") { harness.fetch.running.count == 3 }
        harness.clock.advance(by: 86_400)
        try await harness.eventually("every one runs again") { harness.fetch.running.count == 4 }
        for transfer in harness.fetch.running {
            XCTAssertTrue((0...86_400_000).contains(transfer.request.delayMs), "\(transfer.request.url): \(transfer.request.delayMs)")
        }
        await harness.stop()
    }

    /// Two unclean exits in a row while `a` transferred: FAILED at the start, not started. `b`
    /// was transferring only during the last one: started again, its count carried into the
    /// new flight log. A QUEUED record with a start line (the crash came before PREPARING was
    /// committed) counts too.
    func testTheCrashGuardFailsADownloadThatCrashedTwiceAndStartsTheOthers() async throws {
        let harness = try await EngineHarness { dataDir, registry in
            var records: [Download] = []
            for (id, state) in [("a", DownloadState.downloading), ("b", .downloading), ("q", .queued)] {
                let url = EngineHarness.url(id)
                records.append(Download(
                    id: id, uri: url, title: "", state: state, assetPath: "assets/\(id)/\(id).bin",
                    files: [DownloadFile(url: url, path: "\(id).bin")]))
            }
            try await registry.save(records)
            try "crashed a 1\ncrashed q 1\nstart a\nstart b\nstart q\n".write(toFile: dataDir + "/stashd.flight", atomically: true, encoding: .utf8)
        }
        for id in ["a", "q"] {
            let failed = try await harness.record(id)
            XCTAssertEqual(failed.state, .failed, id)
            XCTAssertEqual(failed.error?.kind, .internal)
            XCTAssertTrue(failed.error?.message.contains("stashd stopped uncleanly 2 times in a row") == true, failed.error?.message ?? "")
        }
        XCTAssertEqual(harness.fetch.started, [EngineHarness.url("b")], "only b is started again")
        let log = try String(contentsOfFile: harness.dataDir + "/stashd.flight", encoding: .utf8)
        XCTAssertTrue(log.hasPrefix("crashed b 1\n"), log)
        await harness.stop()
    }

    /// Cancelled while queued or while running, a download is never started again: not when
    /// slots free, not when the caps are raised.
    func testACancelledDownloadNeverStartsAgain() async throws {
        let harness = try await EngineHarness(config: config { $0.maxParallel = 1 })
        for id in ["a", "b", "c"] { try await harness.add(id) }
        try await harness.engine.cancel(id: "b")
        try await harness.engine.cancel(id: "a")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.stopped, [EngineHarness.url("a")])
        _ = try await harness.engine.setConfig([(key: "max-parallel", value: "4")])
        try await harness.complete(EngineHarness.url("c"))
        try await harness.add("d")
        XCTAssertEqual(harness.fetch.started, ["a", "c", "d"].map { EngineHarness.url($0) })
        for id in ["a", "b"] {
            do {
                _ = try await harness.record(id)
                XCTFail("\(id) is still there")
            } catch let error as StashError {
                XCTAssertEqual(error.code, .notFound)
            }
        }
        await harness.stop()
    }

    /// A download whose size, once known, does not fit goes back to the queue, held; the
    /// recheck on the engine's clock starts it once space is free.
    func testADownloadThatDoesNotFitWaitsForTheRecheckAndThenStarts() async throws {
        let harness = try await EngineHarness(config: config { $0.storageReserve = 0 })
        let url = EngineHarness.url("big")
        harness.setFree(1000)
        try await harness.add("big")
        harness.fetch.respond(url, total: 1_000_000)
        try await harness.settle()
        let held = try await harness.record("big")
        XCTAssertEqual(held.state, .queued)
        XCTAssertTrue(held.stateReason.hasPrefix("insufficient storage: needs 1000000 more bytes, 1000 free"), held.stateReason)
        XCTAssertEqual(harness.fetch.stopped, [url])

        // The recheck comes, and there is still no room: held again, the recheck armed again.
        try await harness.eventually("the recheck sleeps on the clock") { harness.clock.sleeperCount > 0 }
        harness.clock.advance(by: EngineState.storageRecheckInterval)
        try await harness.eventually("the recheck is armed again") { harness.clock.sleeperCount > 0 }
        let stillHeld = try await harness.record("big")
        XCTAssertEqual(stillHeld.state, .queued)
        XCTAssertEqual(harness.fetch.started, [url])

        harness.setFree(10_000_000)
        await harness.engine.run(.schedule)
        try await harness.settle()
        XCTAssertEqual(harness.fetch.started, [url], "a held download waits for the recheck, not for the next schedule")
        harness.clock.advance(by: EngineState.storageRecheckInterval)
        try await harness.eventually("started again once the recheck came") { harness.fetch.started.count == 2 }
        await harness.stop()
    }

    /// Once paused, the download's transfer is stopped, and whatever its transfer still
    /// reports (bytes in flight, even a completion) changes nothing.
    func testNothingOfAPausedDownloadsTransferMovesIt() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("p")
        try await harness.add("p")
        harness.fetch.respond(url, total: 50_000)
        harness.fetch.progress(url, bytes: 10_000)
        try await harness.settle()
        let transfer = try XCTUnwrap(harness.fetch.transfer(url))
        _ = try await harness.engine.pause(id: "p")
        try await harness.settle()
        XCTAssertEqual(harness.fetch.stopped, [url])
        let paused = try await harness.record("p")
        transfer.events(.progress(downloadedBytes: 40_000, totalBytes: nil))
        transfer.events(.completed(bytes: 50_000, sha256: ""))
        try await harness.settle()
        let after = try await harness.record("p")
        XCTAssertEqual(after.state, .paused)
        XCTAssertEqual(after.downloadedBytes, paused.downloadedBytes)
        XCTAssertEqual(harness.fetch.started, [url])
        await harness.stop()
    }

    /// At a start, only what was queued or interrupted is started: a PAUSED, STOPPED, FAILED
    /// or COMPLETED record stays as it is until a client asks.
    func testAStartStartsOnlyWhatWasQueuedOrInterrupted() async throws {
        let states: [(String, DownloadState)] = [("p", .paused), ("s", .stopped), ("f", .failed), ("q", .queued), ("d", .downloading)]
        let harness = try await EngineHarness { _, registry in
            try await registry.save(states.map { id, state in
                let url = EngineHarness.url(id)
                return Download(id: id, uri: url, title: "", state: state, assetPath: "assets/\(id)/\(id).bin",
                                files: [DownloadFile(url: url, path: "\(id).bin")])
            })
        }
        XCTAssertEqual(harness.fetch.started, ["q", "d"].map { EngineHarness.url($0) })
        let after = try await states.asyncMap { try await harness.stateOf($0.0) }
        XCTAssertEqual(after, [.paused, .stopped, .failed, .preparing, .preparing])
        await harness.stop()
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
