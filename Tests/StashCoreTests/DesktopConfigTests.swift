import StashCore
import XCTest

/// The config keys `network` and `on-battery`: text, checked, kept as read.
final class DesktopConfigTests: XCTestCase {
    func testNetworkAndOnBatteryAreTextKeys() throws {
        var config = DaemonConfig()
        XCTAssertEqual(try config.text(forKey: "network"), "any")
        XCTAssertEqual(try config.text(forKey: "on-battery"), "continue")
        try config.set("network", to: " Unmetered ")
        try config.set("on-battery", to: "pause")
        XCTAssertEqual(config.network, .unmetered)
        XCTAssertEqual(config.onBattery, .pause)
        XCTAssertTrue(DaemonConfig.keyNames.contains("network"))
        XCTAssertThrowsError(try config.value(forKey: "network"))
    }

    func testABadValueNamesTheKeyTheValueAndTheChoices() {
        var config = DaemonConfig()
        XCTAssertThrowsError(try config.set("network", to: "cellular")) { error in
            XCTAssertEqual((error as? StashError)?.message, "config 'network': 'cellular' is not one of any, unmetered")
        }
        XCTAssertThrowsError(try config.set("on-battery", to: "stop")) { error in
            XCTAssertEqual((error as? StashError)?.message, "config 'on-battery': 'stop' is not one of continue, pause")
        }
        XCTAssertEqual(config, DaemonConfig(), "nothing changed")
    }
}
