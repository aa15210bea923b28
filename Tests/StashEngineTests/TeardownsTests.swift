import Synchronization
import XCTest

@testable import StashEngine

/// The teardowns of a download end in the order they were ordered, and a removal waits for
/// the last of them, those chained on while it waits too.
final class TeardownsTests: XCTestCase {
    /// What happened, in order.
    private final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A teardown that ends when the test says.
    private final class Gate: Sendable {
        private let stream = AsyncStream.makeStream(of: Void.self)
        func open() { stream.continuation.finish() }
        func pass() async { for await _ in stream.stream {} }
    }

    func testAWaitEndsAfterTheLastTeardownChainedMeanwhile() async {
        let teardowns = Teardowns()
        let log = Log()
        let first = Gate()
        let second = Gate()
        teardowns.chain("a") {
            await first.pass()
            log.add("first")
        }
        let waiter = Task {
            await teardowns.wait(for: "a")
            log.add("removal")
        }
        for _ in 0..<200 { await Task.yield() }
        XCTAssertEqual(log.all, [], "the removal waits")
        teardowns.chain("a") {
            await second.pass()
            log.add("second")
        }
        XCTAssertEqual(teardowns.count, 1)
        second.open()
        first.open()
        await waiter.value
        XCTAssertEqual(log.all, ["first", "second", "removal"], "chained in order; the removal after the last")
        XCTAssertEqual(teardowns.count, 0)
    }

    func testNothingIsChainedOnADownloadWithoutATeardown() async {
        let teardowns = Teardowns()
        let log = Log()
        teardowns.chainIfPending("a") { log.add("part file deleted") }
        XCTAssertEqual(teardowns.count, 0)
        await teardowns.wait(for: "a")
        let gate = Gate()
        teardowns.chain("a") { await gate.pass() }
        teardowns.chainIfPending("a") { log.add("part file deleted") }
        gate.open()
        await teardowns.wait(for: "a")
        XCTAssertEqual(log.all, ["part file deleted"])
    }
}
