import StashCore
import XCTest

final class ListenVariablesTests: XCTestCase {
    private func read(_ pid: String?, _ fds: String?) throws -> ListenVariables.Reading {
        try ListenVariables.read(listenPID: pid, listenFDS: fds, processID: 4242)
    }

    private func refusal(_ pid: String?, _ fds: String?, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let reading = try read(pid, fds)
            XCTFail("LISTEN_PID \(pid ?? "unset"), LISTEN_FDS \(fds ?? "unset") read as \(reading)", file: file, line: line)
            return ""
        } catch let error as StashError {
            XCTAssertEqual(error.code, .failedPrecondition, file: file, line: line)
            return error.message
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    /// As sd_listen_fds: nothing passed unless LISTEN_PID is this process and LISTEN_FDS a
    /// count above 0; an unset LISTEN_FDS is nothing passed, not an error.
    func testWhatSdListenFdsReadsAsNothingPassedIsNothingPassed() throws {
        XCTAssertEqual(try read(nil, nil), .none)
        XCTAssertEqual(try read(nil, "1"), .none)
        XCTAssertEqual(try read("1", "99999999999"), .otherProcess(pid: 1))
        XCTAssertEqual(try read("4242", nil), .nothingPassed(listenFDS: nil))
        XCTAssertEqual(try read("4242", "0"), .nothingPassed(listenFDS: "0"))
        XCTAssertEqual(try read("4242", "1"), .descriptors(count: 1))
        XCTAssertEqual(try read("4242", "2147483644"), .descriptors(count: 2_147_483_644))
    }

    /// Only a canonical decimal is a number: what no manager writes is named, not guessed at.
    func testSignsSpacesLeadingZerosAndOtherBasesAreRefusedWithTheValue() {
        for value in ["+1", "01", "00", "-1", " 1", "1 ", "0x1", "1e0", "", "１", "1\u{0}"] {
            let message = refusal("4242", value)
            XCTAssertTrue(message.hasPrefix("LISTEN_FDS '\(value)' is not a number of descriptors (a decimal number from 0 to 2147483644"), message)
        }
        for value in ["+4242", "04242", "-7", "0", "", "4242 "] {
            let message = refusal(value, "1")
            XCTAssertTrue(message.hasPrefix("LISTEN_PID '\(value)' is not a process id (a decimal number from 1 to 2147483647"), message)
        }
    }

    /// Past 2147483644 the descriptors would run past Int32.max: refused, and the message
    /// names a range that exists.
    func testCountsWhoseDescriptorsPassInt32MaxAreRefusedNamingTheRealLimit() {
        for value in ["2147483645", "2147483647", "2147483648", "99999999999", String(repeating: "9", count: 100)] {
            let message = refusal("4242", value)
            XCTAssertTrue(message.contains("from 0 to 2147483644"), message)
            XCTAssertTrue(message.contains("descriptors 3…2147483646 at most"), message)
            XCTAssertFalse(message.contains("2147483649"), message)
        }
        XCTAssertEqual(ListenVariables.lastDescriptor(count: 1), 3)
        XCTAssertEqual(ListenVariables.lastDescriptor(count: 2_147_483_644), 2_147_483_646)
        XCTAssertEqual(ListenVariables.lastDescriptor(count: .max), 2_147_483_646)
    }

    func testAHugeValueIsShownCut() {
        let message = refusal("4242", String(repeating: "x", count: 100_000))
        XCTAssertLessThan(message.count, 300, message)
        XCTAssertTrue(message.contains(String(repeating: "x", count: 40) + "…"), message)
    }
}
