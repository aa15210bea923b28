import StashCore
import XCTest

@testable import StashEngine

final class AssetLayoutTests: XCTestCase {
    func testFileNameComesFromTheURLPath() {
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/a/b/movie.mp4?x=1"), "movie.mp4")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/"), "download")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h"), "download")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/my%20file.bin"), "my_file.bin")
    }

    func testFileNameCannotEscapeOrHide() {
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/%2e%2e"), "download")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/a%2F..%2Fetc"), "a_.._etc")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/.hidden"), "hidden")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/x.part"), "x.part_")
    }

    func testFileNameIsTheLastSegmentThatIsNotEmpty() {
        XCTAssertEqual(AssetLayout.fileName(percentEncodedPath: "/a/dir/"), "dir")
        XCTAssertEqual(AssetLayout.fileName(percentEncodedPath: "/a//b.bin//"), "b.bin")
        XCTAssertEqual(AssetLayout.fileName(percentEncodedPath: "name.bin"), "name.bin")
        XCTAssertEqual(AssetLayout.fileName(percentEncodedPath: "///"), "download")
        XCTAssertEqual(AssetLayout.fileName(percentEncodedPath: ""), "download")
    }

    /// A character is one `_` whatever its bytes, CR LF (one character of two ASCII bytes)
    /// too, and the 200 kept are characters, on the ASCII path and the other alike.
    func testFileNamesAreCountedByCharacter() {
        XCTAssertEqual(AssetLayout.safeFileName("a\r\nb"), "a_b")
        XCTAssertEqual(AssetLayout.safeFileName("a\rb\nc"), "a_b_c")
        XCTAssertEqual(AssetLayout.safeFileName("caf\u{e9}.bin"), "caf_.bin")
        XCTAssertEqual(AssetLayout.safeFileName("e\u{301}x"), "_x")
        XCTAssertEqual(AssetLayout.safeFileName(String(repeating: "a", count: 250)), String(repeating: "a", count: 200))
        XCTAssertEqual(AssetLayout.safeFileName(String(repeating: "\u{e9}", count: 250)), String(repeating: "_", count: 200))
        XCTAssertEqual(AssetLayout.safeFileName("..a b"), "a_b")
    }

    func testPathsAreRelativeToTheDataDir() {
        let layout = AssetLayout(dataDir: "/d")
        let relative = layout.relativeFilePath(id: "abc", uri: "https://h/f.bin")
        XCTAssertEqual(relative, "assets/abc/f.bin")
        XCTAssertEqual(layout.absolute(relative), "/d/assets/abc/f.bin")
        XCTAssertEqual(layout.filePath(id: "abc", DownloadFile(url: "https://h/f.bin", path: "f.bin")), "/d/assets/abc/f.bin")
        XCTAssertEqual(layout.relativeFolderPath(id: "abc"), "assets/abc")
        XCTAssertEqual(layout.filePath(id: "abc", DownloadFile(url: "https://h/x", path: "pages/001.jpg")), "/d/assets/abc/pages/001.jpg")
    }
}
