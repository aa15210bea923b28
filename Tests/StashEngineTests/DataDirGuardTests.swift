import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// The one rule for client paths: the data dir, anything inside it and anything holding it
/// are refused, however the path leads there (`..`, a symlink, a bind mount).
final class DataDirGuardTests: XCTestCase {
    private var root = ""
    private var data = ""
    private var paths: DataDirGuard { DataDirGuard(dataDir: data) }

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "stash-guard-\(UUID().uuidString)"
        data = root + "/home/data"
        try FileManager.default.createDirectory(atPath: data + "/assets/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: data + "/stash.sqlite", contents: Data()))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func overlap(_ path: String, followingLast: Bool = false) throws -> DataDirGuard.Overlap? {
        paths.overlap(try paths.resolve(path, field: "path", followingLast: followingLast))
    }

    func testThePathsOfTheDataDirAreRefusedHoweverTheyAreWritten() throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/elsewhere/into", withDestinationPath: data)
        XCTAssertEqual(try overlap(data), .same)
        XCTAssertEqual(try overlap(data + "/"), .same)
        XCTAssertEqual(try overlap(data + "/stash.sqlite"), .inside)
        XCTAssertEqual(try overlap(data + "/assets/a"), .inside)
        XCTAssertEqual(try overlap(data + "/assets/../stash.sqlite"), .inside)
        XCTAssertEqual(try overlap(data + "/not/yet/there"), .inside, "a path still to be made there")
        XCTAssertEqual(try overlap(root + "/elsewhere/into/stash.sqlite"), .inside, "through a symlink above it")
        XCTAssertEqual(try overlap(root + "/elsewhere/into", followingLast: true), .same)
        XCTAssertNil(try overlap(root + "/elsewhere/into"), "the symlink itself, not followed, is not the data dir")
        XCTAssertEqual(try overlap(root + "/home"), .containing)
        XCTAssertEqual(try overlap(root), .containing)
        XCTAssertEqual(try overlap("/"), .containing)
        XCTAssertNil(try overlap(root + "/elsewhere"))
        XCTAssertNil(try overlap(root + "/home/data2"), "a sibling whose name starts alike")
        XCTAssertNil(try overlap(root + "/elsewhere/new/deeper"))

        let error = try XCTUnwrap(assertRefused(data + "/assets/../stash.sqlite"))
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertTrue(error.message.contains("path '\(data)/assets/../stash.sqlite'"), error.message)
        XCTAssertTrue(error.message.contains("is inside stash's data dir"), error.message)
        XCTAssertTrue(try XCTUnwrap(assertRefused(root)).message.contains("contains stash's data dir"))
        XCTAssertNoThrow(try paths.refuse(paths.resolve(root + "/home", field: "move_to", followingLast: true), field: "move_to", allowContaining: true))
    }

    func testTheFormOfAPathIsCheckedFirst() {
        for (path, words) in [
            ("relative/x", "must be an absolute path"), ("/a/b\0c", "contains a NUL byte"),
            ("/" + String(repeating: "x", count: 5000), "the limit is 4095"), ("/tmp/..", "ends in '..'"),
        ] {
            XCTAssertThrowsError(try paths.resolve(path, field: "path", followingLast: false)) { error in
                let message = (error as? StashError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix("path '") && message.contains(words), message)
            }
        }
        XCTAssertThrowsError(try paths.resolve(root + "/missing/../x", field: "dir", followingLast: true)) { error in
            XCTAssertTrue("\(error)".contains("below a folder that does not exist"), "\(error)")
        }
    }

    /// A bind mount of the data dir's folder has other canonical paths but the same folders:
    /// only their device and inode tell. Mounting needs root; the mount is undone at the end.
    func testABindMountOfTheDataDirIsSeenByDeviceAndInode() throws {
        guard geteuid() == 0 else { throw XCTSkip("bind-mounting needs root") }
        let mirror = root + "/elsewhere/mirror"
        try FileManager.default.createDirectory(atPath: mirror, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", "--bind", root + "/home", mirror) == 0 else { throw XCTSkip("mount --bind is refused here") }
        defer { XCTAssertEqual(Self.run("/bin/umount", "--lazy", mirror), 0) }
        XCTAssertEqual(try overlap(mirror + "/data/stash.sqlite"), .inside)
        XCTAssertEqual(try overlap(mirror + "/data/assets/new"), .inside)
        XCTAssertEqual(try overlap(mirror + "/data", followingLast: true), .same)
        XCTAssertEqual(try overlap(mirror, followingLast: true), .containing)
        XCTAssertNil(try overlap(root + "/elsewhere", followingLast: true), "its own folder, not the data dir's")
    }

    private static func run(_ tool: String, _ arguments: String...) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func assertRefused(_ path: String) -> StashError? {
        do {
            try paths.refuse(paths.resolve(path, field: "path", followingLast: false), field: "path")
            XCTFail("\(path) was not refused")
        } catch {
            return error as? StashError
        }
        return nil
    }
}
