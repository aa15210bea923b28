import Foundation
import StashCore
import XCTest

@testable import StashEngine

final class FilePoolTests: XCTestCase {
    /// What the work returns or throws comes back; once closed, work is refused as the daemon
    /// stopping, and nothing is left counted.
    func testWorkComesBackAndIsRefusedOnceClosed() async throws {
        let pool = FilePool()
        let sum = try await pool.run { (1...100).reduce(0, +) }
        XCTAssertEqual(sum, 5050)
        do {
            _ = try await pool.run { () throws -> Int in throw StashError.invalidArgument("from the pool") }
            XCTFail("the error was lost")
        } catch let error as StashError {
            XCTAssertEqual(error.message, "from the pool")
        }
        pool.close()
        do {
            _ = try await pool.run { 1 }
            XCTFail("a closed pool ran work")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .unavailable)
        }
        XCTAssertEqual(pool.jobs, 0)
    }
}
