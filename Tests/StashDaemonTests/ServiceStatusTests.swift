import Logging
import StashCore
import XCTest

@testable import StashDaemon

final class ServiceStatusTests: XCTestCase {
    func testStatusSaysWhatIsRunningAndHowFast() {
        let busy = DownloadStats(speed: 4_404_019, counts: [.downloading: 3, .queued: 12, .completed: 40], activeTransfers: 3, downloadedBytes: 0)
        XCTAssertEqual(ServiceStatus(busy).text, "3 downloading, 12 queued, 4.2 MiB/s")
        let waiting = DownloadStats(speed: 0, counts: [.waitingForNetwork: 1, .failed: 2], activeTransfers: 0, downloadedBytes: 0)
        XCTAssertEqual(ServiceStatus(waiting).text, "1 waiting for the network, 2 failed, 0 B/s")
        let idle = DownloadStats(speed: 0, counts: [.completed: 39, .paused: 1], activeTransfers: 0, downloadedBytes: 0)
        XCTAssertEqual(ServiceStatus(idle).text, "idle, 40 downloads kept")
        XCTAssertEqual(ServiceStatus(DownloadStats(speed: 0, counts: [:], activeTransfers: 0, downloadedBytes: 0)).text, "idle, 0 downloads kept")
    }

    func testJournalPrioritiesAreSyslogs() {
        XCTAssertEqual(Logger.Level.allCases.map(JournalLogHandler.priority), [7, 7, 6, 5, 4, 3, 2])
    }

    func testJournalStreamMustNameStderr() {
        XCTAssertFalse(JournalLogHandler.stderrIsJournal(environment: [:]))
        XCTAssertFalse(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "x:y"]))
        XCTAssertFalse(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2:3"]))
        var info = stat()
        XCTAssertEqual(fstat(STDERR_FILENO, &info), 0)
        XCTAssertTrue(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        XCTAssertFalse(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino &+ 1)"]))
    }

    /// A notify socket stashd cannot use turns notifying off instead of failing the start.
    func testAnUnusableNotifySocketIsOff() {
        let logger = Logger(label: "test")
        XCTAssertFalse(ServiceNotifier(environment: [:], logger: logger).isActive)
        XCTAssertFalse(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative"], logger: logger).isActive)
        XCTAssertFalse(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)], logger: logger).isActive)
        XCTAssertTrue(ServiceNotifier(environment: ["NOTIFY_SOCKET": "@stash-test"], logger: logger).isActive)
        XCTAssertNil(ServiceNotifier(environment: ["WATCHDOG_USEC": "0"], logger: logger).watchdogInterval)
        XCTAssertNil(ServiceNotifier(environment: ["WATCHDOG_USEC": "99999999999999999999"], logger: logger).watchdogInterval)
        XCTAssertNil(ServiceNotifier(environment: ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"], pid: 2, logger: logger).watchdogInterval)
        XCTAssertEqual(ServiceNotifier(environment: ["WATCHDOG_USEC": "1000"], logger: logger).watchdogInterval, .microseconds(500))
    }
}
