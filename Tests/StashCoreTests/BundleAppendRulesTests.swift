import StashCore
import XCTest

/// `BundleRules.appended`: the limits of a bundle apply to it as it will be after an append.
final class BundleAppendRulesTests: XCTestCase {
    private func appended(_ specs: [BundleFileSpec], to existing: [DownloadFile]) throws -> [DownloadFile] {
        try BundleRules.appended(specs, to: existing) { url in String(url.split(separator: "/").last ?? "download") }
    }

    private func assertRefused(_ specs: [BundleFileSpec], to existing: [DownloadFile], mentioning parts: [String], line: UInt = #line) {
        XCTAssertThrowsError(try appended(specs, to: existing), line: line) { error in
            guard let error = error as? StashError else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(error.code, .invalidArgument, line: line)
            for part in parts { XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line) }
        }
    }

    private let held = [DownloadFile(url: "https://h/1", path: "p/1.jpg"), DownloadFile(url: "https://h/2", path: "p/2.jpg")]

    func testHeldFilesAreSkippedAndNewOnesKeptInOrder() throws {
        let new = try appended([
            BundleFileSpec(url: "https://h/3", path: "p/3.jpg"),
            BundleFileSpec(url: "https://h/2", path: "p/2.jpg"),
            BundleFileSpec(url: "https://h/x/4.jpg"),
        ], to: held)
        XCTAssertEqual(new.map(\.path), ["p/3.jpg", "4.jpg"])
        XCTAssertEqual(try appended([BundleFileSpec(url: "https://h/1", path: "p/1.jpg")], to: held), [], "all held: nothing to add")
    }

    func testAHeldPathWithAnotherURLIsRefusedNamingIt() {
        assertRefused([BundleFileSpec(url: "https://h/9", path: "p/2.jpg")], to: held, mentioning: ["files[0]", "'p/2.jpg'", "'https://h/2'", "'https://h/9'"])
        // An adopted file has no URL to name.
        assertRefused([BundleFileSpec(url: "https://h/9", path: "a")], to: [DownloadFile(url: "", path: "a")], mentioning: ["adopted"])
    }

    func testEntriesAreCheckedAsANewBundlesAre() {
        assertRefused([BundleFileSpec(url: "https://h/3", path: "../x")], to: held, mentioning: ["files[0]", "'..'"])
        assertRefused([BundleFileSpec(url: "https://h/3", path: "a"), BundleFileSpec(url: "https://h/4", path: "a")], to: held, mentioning: ["files[1]", "files[0]"])
        assertRefused([], to: held, mentioning: ["at least one"])
    }

    func testTheFileCountIsThatOfTheWholeBundle() throws {
        let many = (0..<(BundleRules.maxFiles - 1)).map { DownloadFile(url: "https://h/\($0)", path: "f\($0)") }
        XCTAssertEqual(try appended([BundleFileSpec(url: "https://h/new", path: "new")], to: many).count, 1, "exactly at the limit")
        assertRefused([BundleFileSpec(url: "https://h/a", path: "a"), BundleFileSpec(url: "https://h/b", path: "b")], to: many,
                      mentioning: ["\(BundleRules.maxFiles + 1) files", "\(BundleRules.maxFiles - 1) held", "2 appended", "limit is \(BundleRules.maxFiles)"])
    }

    func testTheSizesAddUpOverTheWholeBundle() throws {
        let big = (0..<4).map { DownloadFile(url: "https://h/\($0)", path: "f\($0)", size: BundleRules.maxFileSize) }
        assertRefused([BundleFileSpec(url: "https://h/x", path: "x", size: 1)], to: big,
                      mentioning: ["\(4 * BundleRules.maxFileSize + 1) bytes", "limit of \(BundleRules.maxTotalSize)"])
        XCTAssertEqual(try appended([BundleFileSpec(url: "https://h/x", path: "x")], to: big).count, 1, "an unknown size adds nothing")
        // A size learned from a server is outside input: the sum saturates instead of trapping.
        let hostile = [DownloadFile(url: "https://h/a", path: "a", size: .max), DownloadFile(url: "https://h/b", path: "b", size: .max)]
        assertRefused([BundleFileSpec(url: "https://h/x", path: "x")], to: hostile, mentioning: ["\(Int64.max) bytes"])
    }

    func testAPathCannotBeAFileAndAFolderAcrossOldAndNew() {
        assertRefused([BundleFileSpec(url: "https://h/3", path: "p/1.jpg/x")], to: held, mentioning: ["'p/1.jpg'", "folder"])
        assertRefused([BundleFileSpec(url: "https://h/3", path: "p")], to: held, mentioning: ["'p'", "folder"])
    }
}
