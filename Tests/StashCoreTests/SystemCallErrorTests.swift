import Foundation
import XCTest

@testable import StashCore

/// `check` names the call and its path in the error it throws, and puts them together only
/// then: a successful call builds no message.
final class SystemCallErrorTests: XCTestCase {
    func testTheMessageIsBuiltOnlyForAnError() throws {
        var built = 0
        func name(_ text: String) -> String {
            built += 1
            return text
        }
        let result = try SystemCallError.check(name("fsync"), name("/a/folder")) { Int32(0) }
        XCTAssertEqual(result, 0)
        XCTAssertEqual(built, 0)

        let missing = "/nonexistent-\(UUID().uuidString)/file"
        XCTAssertThrowsError(try SystemCallError.check(name("open"), name(missing)) { open(missing, O_RDONLY) }) { error in
            guard let error = error as? SystemCallError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.call, "open")
            XCTAssertEqual(error.path, missing)
            XCTAssertEqual(error.errnoCode, ENOENT)
        }
        XCTAssertEqual(built, 2)
    }

    /// A call interrupted by a signal is run again; the second result is the one returned.
    func testAnInterruptedCallIsRunAgain() throws {
        var runs = 0
        let result = try SystemCallError.check("read", "/dev/null") { () -> Int32 in
            runs += 1
            if runs == 1 {
                errno = EINTR
                return -1
            }
            return 7
        }
        XCTAssertEqual(result, 7)
        XCTAssertEqual(runs, 2)
    }
}
