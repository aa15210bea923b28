@testable import StashFetch
import Foundation
import StashCore
import XCTest

/// How failed system calls are classified; the tmpfs test in FetchNoSpaceTests needs root,
/// these run everywhere.
final class FetchFailureTests: XCTestCase {
    func testFullDiskAndQuotaAreNoSpace() {
        for code in [ENOSPC, EDQUOT] {
            let failure = FetchFailure.thrown(SystemCallError(call: "write", path: "/d/a.bin.part", errnoCode: code))
            XCTAssertTrue(failure.noSpace)
            XCTAssertFalse(failure.retryable)
            XCTAssertEqual(failure.error.kind, .storage)
            let reason = String(cString: strerror(code))
            XCTAssertEqual(failure.error.message, "no space left on device writing '/d/a.bin.part' (write '/d/a.bin.part' failed: \(reason) (errno \(code)))")
            XCTAssertEqual(failure.finalEvent, .noSpace(failure.error))
        }
    }

    func testOtherCallFailuresAreStorageFailures() {
        let failure = FetchFailure.thrown(SystemCallError(call: "open", path: "/d/a.bin.part", errnoCode: EACCES))
        XCTAssertFalse(failure.noSpace)
        XCTAssertFalse(failure.retryable)
        XCTAssertEqual(failure.finalEvent, .failed(DownloadError(.storage, "open '/d/a.bin.part' failed: \(String(cString: strerror(EACCES))) (errno \(EACCES))")))
    }

    func testSymlinkInTheWaySaysSo() {
        let failure = FetchFailure.thrown(SystemCallError(call: "open folder", path: "/d/asset/sub", errnoCode: ENOTDIR))
        XCTAssertEqual(failure.error.kind, .storage)
        XCTAssertTrue(failure.error.message.hasPrefix("open folder '/d/asset/sub' failed: "), failure.error.message)
        XCTAssertTrue(failure.error.message.contains("a symlink or a file is where a folder or the part file belongs"), failure.error.message)
    }

    func testOtherErrorsAreInternal() {
        struct Odd: Error {}
        XCTAssertEqual(FetchFailure.thrown(Odd()).finalEvent, .failed(DownloadError(.internal, "Odd()")))
        let given = DownloadError(.validation, "bad path")
        XCTAssertEqual(FetchFailure.thrown(given).finalEvent, .failed(given))
    }
}
