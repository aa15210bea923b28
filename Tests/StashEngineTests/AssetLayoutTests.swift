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

    /// A NUL decoded from the URL, bytes that are not UTF-8 and a path inside the data dir
    /// all end as one plain name in the download's own folder.
    func testHostileURLPathsNameAPlainFile() {
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/a%00b.bin"), "a_b.bin")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/%FF%FE.bin"), "_FF_FE.bin", "not UTF-8: the name as written, its % replaced")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/x/..%2Fstash.sqlite"), "_stash.sqlite")
        XCTAssertEqual(AssetLayout.fileName(from: "http://h/%2Fdata%2Fassets%2F"), "_data_assets_")
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
