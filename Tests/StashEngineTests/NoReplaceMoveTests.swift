import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// Moves that never overwrite and never show a part under the final name, on one file system
/// and across two (/tmp and /dev/shm, when they differ).
final class NoReplaceMoveTests: XCTestCase {
    private var here = ""
    private var there = ""

    override func setUpWithError() throws {
        here = NSTemporaryDirectory() + "stash-move-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: here + "/from", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: here + "/to", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: here)
        if !there.isEmpty { try? FileManager.default.removeItem(atPath: there) }
    }

    /// A folder on another file system than `here`, or a skip.
    private func otherFileSystem() throws -> String {
        guard let a = try SystemCallError.status(here), let b = try SystemCallError.status("/dev/shm"), a.st_dev != b.st_dev else {
            throw XCTSkip("/dev/shm is not another file system here")
        }
        there = "/dev/shm/stash-move-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: there, withIntermediateDirectories: true)
        return there
    }

    private func write(_ path: String, _ bytes: Int, seed: UInt8 = 1) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let data = Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0) &+ seed })
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data), path)
    }

    private func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    private func handles(_ from: String, _ to: String) throws -> (FolderHandle, FolderHandle) {
        (try FolderHandle.open(from, followingSymlink: false), try FolderHandle.open(to, followingSymlink: false))
    }

    private func assertExists(_ error: Error, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual((error as? SystemCallError)?.errnoCode, EEXIST, "\(error)", file: file, line: line)
    }

    func testARenameNeverReplacesAndTheLinkWayNeitherDoes() throws {
        try write(here + "/from/a.bin", 100, seed: 1)
        try write(here + "/to/taken.bin", 10, seed: 9)
        let (from, to) = try handles(here + "/from", here + "/to")
        defer { from.release(); to.release() }
        XCTAssertThrowsError(try NoReplaceMove.move("a.bin", in: from, to: "taken.bin", in: to, temporary: ".t")) { assertExists($0) }
        XCTAssertEqual(contents(here + "/to/taken.bin")?.count, 10, "nothing overwritten")
        XCTAssertThrowsError(try NoReplaceMove.renameByLink("a.bin", in: from, to: "taken.bin", in: to)) { assertExists($0) }
        XCTAssertEqual(contents(here + "/to/taken.bin")?.count, 10)
        XCTAssertEqual(contents(here + "/from/a.bin")?.count, 100)

        XCTAssertEqual(try NoReplaceMove.move("a.bin", in: from, to: "a.bin", in: to, temporary: ".t"), .renamed)
        XCTAssertEqual(contents(here + "/to/a.bin")?.count, 100)
        XCTAssertNil(contents(here + "/from/a.bin"))

        // The way for file systems without RENAME_NOREPLACE, for a file and for a folder.
        XCTAssertNoThrow(try NoReplaceMove.renameByLink("a.bin", in: to, to: "b.bin", in: from))
        XCTAssertEqual(contents(here + "/from/b.bin")?.count, 100)
        XCTAssertNil(contents(here + "/to/a.bin"))
        try write(here + "/from/dir/inner.bin", 5)
        try FileManager.default.createDirectory(atPath: here + "/to/full", withIntermediateDirectories: false)
        try write(here + "/to/full/x", 1)
        XCTAssertThrowsError(try NoReplaceMove.renameByLink("dir", in: from, to: "full", in: to)) { assertExists($0) }
        XCTAssertEqual(contents(here + "/to/full/x")?.count, 1)
        XCTAssertNoThrow(try NoReplaceMove.renameByLink("dir", in: from, to: "moved", in: to))
        XCTAssertEqual(contents(here + "/to/moved/inner.bin")?.count, 5)
    }

    func testACopyToAnotherFileSystemShowsNothingUnderTheFinalNameUntilItIsWhole() throws {
        let target = try otherFileSystem()
        let size = 3 * NoReplaceMove.copyChunk + 17
        try write(here + "/from/pkg/video/seg.ts", size, seed: 3)
        try write(here + "/from/pkg/master.m3u8", 40, seed: 4)
        let (from, to) = try handles(here + "/from", target)
        defer { from.release(); to.release() }
        var noted = 0
        var looks = 0
        let outcome = try NoReplaceMove.move(
            "pkg", in: from, to: "pkg", in: to, temporary: ".stash-forget-pkg.part",
            willCopy: { noted += 1 },
            copied: { _ in
                looks += 1
                XCTAssertNil(try? FileManager.default.attributesOfItem(atPath: target + "/pkg"), "the final name stays free during the copy")
                XCTAssertNotNil(try? FileManager.default.attributesOfItem(atPath: target + "/.stash-forget-pkg.part"))
            })
        XCTAssertEqual(outcome, .copied)
        XCTAssertEqual(noted, 1)
        XCTAssertGreaterThanOrEqual(looks, 4)
        XCTAssertEqual(contents(target + "/pkg/video/seg.ts"), contents(here + "/from/pkg/video/seg.ts"))
        XCTAssertEqual(contents(target + "/pkg/master.m3u8")?.count, 40)
        XCTAssertNotNil(contents(here + "/from/pkg/video/seg.ts"), "the source stays for the caller to delete")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target + "/.stash-forget-pkg.part"))
    }

    func testATargetMadeDuringTheCopyIsNotOverwrittenAndTheCopyGoes() throws {
        let target = try otherFileSystem()
        try write(here + "/from/big.bin", 2 * NoReplaceMove.copyChunk, seed: 5)
        let (from, to) = try handles(here + "/from", target)
        defer { from.release(); to.release() }
        var raced = false
        XCTAssertThrowsError(try NoReplaceMove.move("big.bin", in: from, to: "big.bin", in: to, temporary: ".tmp-big", copied: { _ in
            if !raced { raced = FileManager.default.createFile(atPath: target + "/big.bin", contents: Data("theirs".utf8)) }
        })) { assertExists($0) }
        XCTAssertTrue(raced)
        XCTAssertEqual(contents(target + "/big.bin"), Data("theirs".utf8), "what another program put there stays")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target + "/.tmp-big"), "the copy is taken back")
        XCTAssertEqual(contents(here + "/from/big.bin")?.count, 2 * NoReplaceMove.copyChunk)

        // A target there before the copy starts: refused before anything is written.
        XCTAssertThrowsError(try NoReplaceMove.move("big.bin", in: from, to: "big.bin", in: to, temporary: ".tmp-big", willCopy: {
            XCTFail("no copy starts")
        })) { assertExists($0) }
    }

    func testASymlinkInAFolderRefusesACopyAndNothingIsLeft() throws {
        let target = try otherFileSystem()
        try write(here + "/from/pkg/a.bin", 10)
        try FileManager.default.createSymbolicLink(atPath: here + "/from/pkg/link", withDestinationPath: "/etc/passwd")
        let (from, to) = try handles(here + "/from", target)
        defer { from.release(); to.release() }
        XCTAssertThrowsError(try NoReplaceMove.move("pkg", in: from, to: "pkg", in: to, temporary: ".tmp-pkg")) { error in
            XCTAssertTrue((error as? StashError)?.message.contains("link is a symlink") ?? false, "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])
    }
}
