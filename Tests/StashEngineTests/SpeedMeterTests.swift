import XCTest

@testable import StashEngine

final class SpeedMeterTests: XCTestCase {
    func testSteadyRateConverges() {
        var meter = SpeedMeter(window: 1)
        for step in 0...50 {
            meter.sample(bytes: Int64(step) * 100_000, at: Double(step) * 0.1)
        }
        XCTAssertEqual(meter.bytesPerSecond, 1_000_000, accuracy: 10_000)
    }

    func testRestartFromZeroIsNotNegative() {
        var meter = SpeedMeter()
        meter.sample(bytes: 5_000_000, at: 0)
        meter.sample(bytes: 0, at: 1)
        XCTAssertGreaterThanOrEqual(meter.bytesPerSecond, 0)
    }
}
