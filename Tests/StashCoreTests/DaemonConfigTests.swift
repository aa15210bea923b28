import StashCore
import XCTest

final class DaemonConfigTests: XCTestCase {
    func testSetWithinLimits() throws {
        var config = DaemonConfig()
        try config.set("max-parallel", to: "8")
        try config.set("rate-limit", to: " 1048576 ")
        XCTAssertEqual(config.maxParallel, 8)
        XCTAssertEqual(config.rateLimit, 1_048_576)
        XCTAssertEqual(try config.value(forKey: "max-parallel"), 8)
    }

    func testErrorsNameKeyValueAndLimit() {
        var config = DaemonConfig()
        XCTAssertThrowsError(try config.set("max-parallel", to: "0")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("max-parallel") && message.contains("0") && message.contains("1...64"), message)
        }
        XCTAssertThrowsError(try config.set("max-parallel", to: "many")) { error in
            XCTAssertTrue("\(error)".contains("'many'"))
        }
        XCTAssertThrowsError(try config.set("colour", to: "1")) { error in
            XCTAssertTrue("\(error)".contains("known keys"))
        }
        XCTAssertEqual(config, DaemonConfig(), "a refused value changes nothing")
    }
}
