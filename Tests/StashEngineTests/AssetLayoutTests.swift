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
