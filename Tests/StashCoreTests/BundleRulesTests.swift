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
