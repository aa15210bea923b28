import Foundation
import Logging
import XCTest

@testable import StashDaemon

final class IdleSpinnerTests: XCTestCase {
    /// Polls `condition` every millisecond for up to 5 s.
    private func eventually(_ what: String, _ condition: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("not within 5 s: \(what)") }
            usleep(1000)
        }
    }

    func testZeroWindowMakesNoSpinner() {
        XCTAssertNil(IdleSpinner(windowMicroseconds: 0, logger: Logger(label: "test")))
    }

    func testSpinsAfterARequestAndSleepsWhenQuiet() throws {
        let spinner = try XCTUnwrap(IdleSpinner(windowMicroseconds: 20_000, logger: Logger(label: "test")))
        defer { spinner.stop() }
        XCTAssertFalse(spinner.isSpinning, "nothing to spin for before the first request")
        spinner.requestArrived()
        eventually("spinning after a request") { spinner.isSpinning }
        eventually("asleep once no request came for the window") { !spinner.isSpinning }
        // Requests keep it spinning; a later one wakes it again.
        spinner.requestArrived()
        eventually("spinning again") { spinner.isSpinning }
        spinner.stop()
        eventually("stopped") { !spinner.isSpinning }
        spinner.requestArrived()
        XCTAssertFalse(spinner.isSpinning, "a stopped spinner stays stopped")
    }

    /// It must never take CPU time from real work: the thread runs at SCHED_IDLE (policy 5).
    func testThreadRunsAtIdlePriority() throws {
        let spinner = try XCTUnwrap(IdleSpinner(windowMicroseconds: 20_000, logger: Logger(label: "test")))
        defer { spinner.stop() }
        spinner.requestArrived()
        eventually("spinning") { spinner.isSpinning }
        // Policy is field 41 of proc(5)'s stat, the 39th after the parenthesised name.
        func policies() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { task -> String? in
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                      let nameEnd = stat.lastIndex(of: ")") else { return nil }
                let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
                return fields.count > 38 ? String(fields[38]) : nil
            }
        }
        // A spinner of an earlier test may take up to its window to end.
        eventually("one thread, the spinner, at SCHED_IDLE: \(policies())") { policies().filter { $0 == "5" }.count == 1 }
    }
}
