import StashCore
import XCTest

final class BundleRulesTests: XCTestCase {
    private func files(_ specs: [BundleFileSpec]) throws -> [DownloadFile] {
        try BundleRules.files(from: specs) { url in String(url.split(separator: "/").last ?? "download") }
    }

    private func assertRefused(_ specs: [BundleFileSpec], mentioning parts: [String], line: UInt = #line) {
        XCTAssertThrowsError(try files(specs), line: line) { error in
            guard let error = error as? StashError else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(error.code, .invalidArgument, line: line)
            for part in parts { XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line) }
        }
    }

    /// A client's sizes are outside input: 5e18 twice used to overflow the estimated total.
    func testSizesAreBoundedOneByOneAndTogether() throws {
        let huge: Int64 = 5_000_000_000_000_000_000
        assertRefused([BundleFileSpec(url: "https://h/a", path: "a", size: huge), BundleFileSpec(url: "https://h/b", path: "b", size: huge)],
                      mentioning: ["files[0]", "size 5000000000000000000", "limit of \(BundleRules.maxFileSize)"])
        assertRefused([BundleFileSpec(url: "https://h/a", path: "a", size: .max)], mentioning: ["size 9223372036854775807"])
        assertRefused([BundleFileSpec(url: "https://h/a", path: "a", size: -1)], mentioning: ["size -1", "negative"])
        let most = BundleFileSpec(url: "https://h/a", path: "a", size: BundleRules.maxFileSize)
        let specs = (0..<5).map { BundleFileSpec(url: "https://h/\($0)", path: "f\($0)", size: BundleRules.maxFileSize) }
        assertRefused(specs, mentioning: ["files[4]", "add up to \(5 * BundleRules.maxFileSize)", "limit of \(BundleRules.maxTotalSize)"])
        XCTAssertEqual(try files([most]).first?.size, BundleRules.maxFileSize)
        XCTAssertEqual(try files(Array(specs.prefix(4))).count, 4)
    }

    func testGoodPathsAreKeptAndMissingPathsComeFromTheURL() throws {
        let result = try files([
            BundleFileSpec(url: "https://h/a/001.jpg", path: "pages/001.jpg", size: 10, sha256: String(repeating: "AB", count: 32)),
            BundleFileSpec(url: "https://h/a/audio.mp3"),
            BundleFileSpec(url: "https://h/x", path: "deep/er/still/x.txt"),
        ])
        XCTAssertEqual(result.map(\.path), ["pages/001.jpg", "audio.mp3", "deep/er/still/x.txt"])
        XCTAssertEqual(result[0].size, 10)
        XCTAssertNil(result[1].size, "0 means unknown")
        XCTAssertEqual(result[0].sha256, String(repeating: "ab", count: 32), "digests are lowercased")
    }

    func testEachBadPathIsRefusedNamingTheEntry() {
        let good = BundleFileSpec(url: "https://h/ok", path: "ok")
        let cases: [(String, String)] = [
            ("../x", "'..'"), ("a/../../x", "'..'"), ("..", "'..'"), ("/abs", "absolute"), ("a\\b", "backslash"),
            ("a\u{0}b", "NUL"), ("a//b", "empty"), ("./a", "empty"), ("a/", "empty"),
            (String(repeating: "n", count: 256), "255"), (String(repeating: "a/", count: 600) + "x", "1024"),
            ("f.part", ".part"),
        ]
        for (path, rule) in cases {
            assertRefused([good, BundleFileSpec(url: "https://h/x", path: path)], mentioning: ["files[1]", rule])
        }
    }

    func testDuplicatesAndFileFolderClashesAreRefused() {
        assertRefused(
            [BundleFileSpec(url: "https://h/1", path: "a.jpg"), BundleFileSpec(url: "https://h/2", path: "a.jpg")],
            mentioning: ["files[1]", "files[0]", "a.jpg"])
        assertRefused(
            [BundleFileSpec(url: "https://h/1/a.jpg"), BundleFileSpec(url: "https://h/2/a.jpg")],
            mentioning: ["same as files[0]"])
        assertRefused(
            [BundleFileSpec(url: "https://h/1", path: "a/b/c"), BundleFileSpec(url: "https://h/2", path: "a/b")],
            mentioning: ["'a/b'", "folder"])
    }

    func testBadURLsSizesAndDigestsNameTheEntry() {
        assertRefused([BundleFileSpec(url: "ftp://h/x", path: "x")], mentioning: ["files[0]", "ftp"])
        assertRefused([BundleFileSpec(url: "https://h/x", path: "x", size: -1)], mentioning: ["files[0]", "negative"])
        assertRefused([BundleFileSpec(url: "https://h/x", path: "x", sha256: "xyz")], mentioning: ["files[0]", "sha256"])
        assertRefused([], mentioning: ["at least one"])
    }

    func testTheHostOfAFileIsWhatThePerHostCapCounts() {
        XCTAssertEqual(DownloadFile(url: "https://Media.Example.com:8443/a", path: "a").host, "media.example.com")
        XCTAssertEqual(DownloadFile(url: "http://user:pw@h.example/a", path: "a").host, "h.example")
        XCTAssertEqual(DownloadFile(url: "http://[::1]:80/a", path: "a").host, "::1")
        XCTAssertEqual(DownloadFile(url: "http://127.0.0.1:9", path: "a").host, "127.0.0.1")
    }
}
