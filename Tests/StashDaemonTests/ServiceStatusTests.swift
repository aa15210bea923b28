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
        XCTAssertEqual(Logger.Level.allCases.map(DaemonLogHandler.priority), [7, 7, 6, 5, 4, 3, 2])
    }

    /// The timestamp made once a second is the one `localtime` and `strftime` give for it.
    func testPlainTimestampIsTheLocalTimeOfTheSecond() {
        let stamp = LogTimestamp()
        for _ in 0..<3 {
            let before = Self.localTime(time(nil))
            let made = stamp.now()
            let after = Self.localTime(time(nil))
            XCTAssertTrue(made == before || made == after, "\(made) is neither \(before) nor \(after)")
            XCTAssertNotNil(made.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}/), made)
        }
    }

    private static func localTime(_ second: time_t) -> String {
        var second = second
        var local = tm()
        var buffer = [CChar](repeating: 0, count: 64)
        guard localtime_r(&second, &local) != nil, strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local) > 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func testJournalStreamMustNameStderr() {
        XCTAssertFalse(DaemonLogHandler.stderrIsJournal(environment: [:]))
        XCTAssertFalse(DaemonLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "x:y"]))
        XCTAssertFalse(DaemonLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2:3"]))
        var info = stat()
        XCTAssertEqual(fstat(STDERR_FILENO, &info), 0)
        XCTAssertTrue(DaemonLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        XCTAssertFalse(DaemonLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino &+ 1)"]))
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
