@testable import StashFetch
import XCTest

final class RateLimiterTests: XCTestCase {
    func testUnlimitedNeverWaits() {
        var limiter = RateLimiter()
        XCTAssertEqual(limiter.admit(1 << 30, now: 5), 0)
        XCTAssertEqual(limiter.admit(1 << 30, now: 5), 0)
    }

    func testPacesToTheLimit() {
        var limiter = RateLimiter()
        limiter.reset(limit: 1000, now: 0)
        XCTAssertEqual(limiter.admit(500, now: 0), 0, "the first chunk goes through")
        XCTAssertEqual(limiter.admit(500, now: 100_000_000), 400_000_000, "500 bytes at 1000 B/s end at 0.5 s")
        XCTAssertEqual(limiter.admit(500, now: 500_000_000), 0)
        XCTAssertEqual(limiter.admit(500, now: 600_000_000), 400_000_000)
    }

    func testIdleTimeEarnsNoBurst() {
        var limiter = RateLimiter()
        limiter.reset(limit: 1000, now: 0)
        XCTAssertEqual(limiter.admit(100, now: 0), 0)
        XCTAssertEqual(limiter.admit(1000, now: 10_000_000_000), 0)
        XCTAssertEqual(limiter.admit(100, now: 10_000_000_000), 1_000_000_000)
    }
}
