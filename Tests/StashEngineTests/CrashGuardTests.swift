import XCTest

@testable import StashEngine

final class CrashGuardTests: XCTestCase {
    func testACleanExitCountsNothing() {
        XCTAssertEqual(CrashGuard(log: nil), CrashGuard(log: nil))
        XCTAssertTrue(CrashGuard(log: nil).failing.isEmpty)
        XCTAssertTrue(CrashGuard(log: nil).carried.isEmpty)
    }

    func testOneUncleanExitIsCarriedAndTheSecondFails() {
        let first = CrashGuard(log: "start a\nstart b\nend b\nstart c\n")
        XCTAssertEqual(first.carried, ["a": 1, "c": 1])
        XCTAssertTrue(first.failing.isEmpty)
        XCTAssertEqual(first.header, "crashed a 1\ncrashed c 1\n")

        // a transfers again and stashd dies again; c was not transferring this time.
        let second = CrashGuard(log: first.header + "start a\nstart d\n")
        XCTAssertEqual(second.failing, ["a": 2])
        XCTAssertEqual(second.carried, ["d": 1], "c's count is not in a row any more")
    }

    func testDownloadsThatEndedBeforeTheCrashAreNotCounted() {
        let verdict = CrashGuard(log: "crashed a 1\nstart a\nend a\n")
        XCTAssertTrue(verdict.failing.isEmpty)
        XCTAssertTrue(verdict.carried.isEmpty)
    }

    func testATornOrHostileLogNeitherTrapsNorOvercounts() {
        let verdict = CrashGuard(log: "crashed a 99999999999999999999999\ncrashed b -5\ncrashed\nstart\nstart a\nstart b\nstar")
        XCTAssertEqual(verdict.failing, ["a": 2, "b": 2])
        XCTAssertEqual(CrashGuard(log: "").failing, [:])
        XCTAssertEqual(CrashGuard(log: "start x").carried, ["x": 1], "a last line without its newline still counts")
    }
}
