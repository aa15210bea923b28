import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// Where the bytes go: folders inside the asset's folder are created, and nothing is ever
/// written outside it, whatever symlinks or links are planted inside.
final class FetchDestinationTests: FetchTestCase {
    private let body = TestBody.pattern(size: 100_000, seed: 21)
    private var asset: String { "\(folder!)/asset" }
    private var outside: String { "\(folder!)/outside" }

    override func setUp() async throws {
        try await super.setUp()
        server.serve(path: "/d", route: TestRoute(body: body, etag: "\"d\""))
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    private func request(relativePath: String) -> FetchRequest {
        var request = request("/d", sha256: body.sha256Hex)
        request.relativePath = relativePath
        return request
    }

    private func symlink(at path: String, to target: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    private func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    private func outsideEntries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
    }

    /// The transfer failed with a storage error naming `path`, before asking the server.
    private func assertRefused(_ recorder: EventRecorder, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .failed(let error) = recorder.finalEvent else {
            return XCTFail("expected a failure, got \(recorder.events)", file: file, line: line)
        }
        XCTAssertEqual(error.kind, .storage, file: file, line: line)
        XCTAssertTrue(error.message.contains("'\(path)'"), error.message, file: file, line: line)
        // A transfer from byte 0 opens its file only at its commit (`PartFile.init(deferred:)`),
        // so the body may have been fetched into memory; a refused destination is final.
        XCTAssertLessThanOrEqual(server.requests(for: "/d").count, 1, "asked once at most, never again", file: file, line: line)
    }

    func testNestedFoldersAreCreated() async throws {
        let request = request(relativePath: "pages/2024/001.jpg")

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 100_000, sha256: body.sha256Hex))
        XCTAssertEqual(request.finalPath, "\(asset)/pages/2024/001.jpg")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
        XCTAssertFalse(exists(request.partPath))
    }

    func testSymlinkedFolderInsideIsNotFollowed() async throws {
        try symlink(at: "\(asset)/pages", to: outside)

        let recorder = await fetch(request(relativePath: "pages/001.jpg"))

        assertRefused(recorder, naming: "\(asset)/pages")
        XCTAssertEqual(try outsideEntries(), [])
    }

    func testSymlinkedFolderDeeperInsideIsNotFollowed() async throws {
        try FileManager.default.createDirectory(atPath: "\(asset)/a", withIntermediateDirectories: true)
        try symlink(at: "\(asset)/a/b", to: outside)

        let recorder = await fetch(request(relativePath: "a/b/c/001.jpg"))

        assertRefused(recorder, naming: "\(asset)/a/b")
        XCTAssertEqual(try outsideEntries(), [], "not even the folder c is created through the link")
    }

    func testSymlinkAtTheFinalNameIsReplacedNotFollowed() async throws {
        let target = "\(outside)/target.txt"
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8)))
        let request = request(relativePath: "sub/file.bin")
        try symlink(at: request.finalPath, to: target)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 100_000, sha256: body.sha256Hex))
        XCTAssertEqual(contents(target), Array("keep".utf8))
        XCTAssertFalse(isSymlink(request.finalPath), "the rename replaced the link itself")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testSymlinkAtThePartNameIsNotFollowed() async throws {
        // Dangling, so following it would create the target: O_CREAT must not go through it.
        let target = "\(outside)/created.txt"
        let request = request(relativePath: "sub/file.bin")
        try symlink(at: request.partPath, to: target)

        let recorder = await fetch(request)

        assertRefused(recorder, naming: request.partPath)
        XCTAssertFalse(exists(target))
        XCTAssertTrue(isSymlink(request.partPath))
        XCTAssertFalse(exists(request.finalPath))
    }

    func testHardLinkAtThePartNameIsNotWritten() async throws {
        let target = "\(outside)/linked.txt"
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8)))
        var request = request(relativePath: "sub/file.bin")
        // A validator makes the part look resumable, the case that would append to it.
        request.etag = "\"d\""
        try FileManager.default.createDirectory(atPath: "\(asset)/sub", withIntermediateDirectories: true)
        XCTAssertEqual(link(target, request.partPath), 0)

        let recorder = await fetch(request)

        assertRefused(recorder, naming: request.partPath)
        XCTAssertEqual(contents(target), Array("keep".utf8))
    }

    func testPathLeavingTheFolderIsRefused() async throws {
        let recorder = await fetch(request(relativePath: "../escape.bin"))

        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected a failure, got \(recorder.events)") }
        XCTAssertEqual(error.kind, .validation)
        XCTAssertFalse(exists("\(folder!)/escape.bin.part"))
        XCTAssertTrue(server.requests(for: "/d").isEmpty)
    }
}
