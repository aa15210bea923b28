import CLinux
import Foundation
import StashCore
import StashTestSupport
import Synchronization
import XCTest

@testable import StashFetch

/// A part file past the write-behind interval: the background flushes run on a duplicate of
/// its descriptor while writes go on, and the committed file must hold every byte in order.
final class PartFileTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("stash-part-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testAFileLongerThanTwoFlushIntervalsLandsWhole() throws {
        let chunk = 1 << 20
        let chunks = Int(2 * WriteBehind.interval) / chunk + 3
        let file = try PartFile(folder: folder, relativePath: "big.bin", hashing: false)
        var bytes = [UInt8](repeating: 0, count: chunk)
        for index in 0..<chunks {
            // Each chunk starts with its own number, so a chunk lost or written twice shows.
            withUnsafeBytes(of: UInt32(index).bigEndian) { bytes.replaceSubrange(0..<4, with: $0) }
            try bytes.withUnsafeBytes { try file.append($0) }
        }
        // As a single-file transfer does: the file's own data synced, renamed, its folders synced.
        let committed = expectation(description: "committed")
        let failure = Mutex<String?>(nil)
        FileSyncer().commit(file, durability: .alone) { error in
            failure.withLock { $0 = error.map { "\($0)" } }
            committed.fulfill()
        }
        wait(for: [committed], timeout: 60)
        XCTAssertNil(failure.withLock { $0 })

        let path = folder + "/big.bin"
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".part"))
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        XCTAssertEqual(try handle.seekToEnd(), UInt64(chunks * chunk))
        for index in [0, chunks / 2, chunks - 1] {
            try handle.seek(toOffset: UInt64(index * chunk))
            let head = try XCTUnwrap(handle.read(upToCount: 4))
            XCTAssertEqual(head.reduce(0) { $0 << 8 | UInt32($1) }, UInt32(index), "chunk \(index)")
        }
    }

    /// A small file's pieces (libcurl's few KiB at a time) reach the disk in one write, at the
    /// commit; until then the part file holds nothing.
    func testASmallFileIsWrittenOnceAtItsCommit() throws {
        let file = try PartFile(folder: folder, relativePath: "small.bin", hashing: false)
        let body = Self.pattern(65536)
        for start in stride(from: 0, to: body.count, by: 6000) {
            try body[start..<min(start + 6000, body.count)].withUnsafeBytes { try file.append($0) }
        }
        XCTAssertEqual(file.size, 65536)
        XCTAssertEqual(try Self.sizeOnDisk(file.descriptor), 0, "the pieces wait in memory")
        try commit(file)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/small.bin"), Data(body))
    }

    /// A piece that does not fit in memory writes what waits there first, then itself; every
    /// piece after it goes to the file at once.
    func testAPieceThatDoesNotFitWritesTheHeadFirst() throws {
        let file = try PartFile(folder: folder, relativePath: "large.bin", hashing: false)
        let body = Self.pattern(PartFile.headCapacity + 300_000)
        var offset = 0
        for length in [10_000, PartFile.headCapacity - 10_000 - 5, 20_000, 7_000] {
            try body[offset..<offset + length].withUnsafeBytes { try file.append($0) }
            offset += length
        }
        XCTAssertEqual(try Self.sizeOnDisk(file.descriptor), Int64(offset), "past the head every piece is written at once")
        try body[offset...].withUnsafeBytes { try file.append($0) }
        try commit(file)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/large.bin"), Data(body))
    }

    /// A transfer stopped before its end keeps what it received: closing writes the bytes held
    /// in memory, so a resume finds them in the part file.
    func testClosingWritesTheBytesHeldInMemory() throws {
        let file = try PartFile(folder: folder, relativePath: "paused.bin", hashing: false)
        let body = Self.pattern(10_000)
        try body.withUnsafeBytes { try file.append($0) }
        file.closeFile()
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/paused.bin.part"), Data(body))
        let reopened = try PartFile(folder: folder, relativePath: "paused.bin", hashing: false)
        XCTAssertEqual(reopened.size, 10_000)
    }

    /// A restart from zero drops the bytes held in memory with the file's.
    func testTruncateDropsTheBytesHeldInMemory() throws {
        let file = try PartFile(folder: folder, relativePath: "again.bin", hashing: false)
        try Self.pattern(5_000).withUnsafeBytes { try file.append($0) }
        try file.truncate()
        let body = Self.pattern(3_000)
        try body.withUnsafeBytes { try file.append($0) }
        try commit(file)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/again.bin"), Data(body))
    }

    /// A transfer that starts from byte 0 touches the disk only at its commit: its folders and
    /// part file are made then, and what an earlier run left in the part file is dropped.
    func testADeferredFileMakesNothingUntilItsCommitAndDropsAnOldPart() throws {
        let inside = folder + "/asset"
        try FileManager.default.createDirectory(atPath: inside + "/sub", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: inside + "/sub/old.bin.part", contents: Data(repeating: 9, count: 200_000)))
        let fresh = try PartFile(folder: folder + "/new", relativePath: "a/b.bin", hashing: true, deferred: true)
        let old = try PartFile(folder: inside, relativePath: "sub/old.bin", hashing: true, deferred: true)
        let body = Self.pattern(70_000)
        for file in [fresh, old] {
            try body.withUnsafeBytes { try file.append($0) }
            XCTAssertTrue(file.isDeferred)
            XCTAssertEqual(file.size, 70_000)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/new"), "nothing is made before the commit")
        try commit(fresh)
        try commit(old)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/new/a/b.bin"), Data(body))
        XCTAssertEqual(FileManager.default.contents(atPath: inside + "/sub/old.bin"), Data(body), "the old part's 200,000 bytes are gone")
        // The digest covers this run's bytes only, not the old part's.
        XCTAssertEqual(old.sha256Hex, fresh.sha256Hex)
        XCTAssertEqual(old.sha256Hex.count, 64)
    }

    /// A piece that does not fit in memory needs the file open: the fetch loop opens it on a
    /// disk queue, then every byte lands in order.
    func testADeferredFileOpensWhenItOutgrowsTheHead() throws {
        let file = try PartFile(folder: folder, relativePath: "grown.bin", hashing: false, deferred: true)
        let body = Self.pattern(PartFile.headCapacity + 50_000)
        try body[0..<100_000].withUnsafeBytes { try file.append($0) }
        XCTAssertFalse(file.needsOpen(toAppend: PartFile.headCapacity - 100_000))
        XCTAssertTrue(file.needsOpen(toAppend: PartFile.headCapacity - 100_000 + 1))
        try file.openDeferred()
        XCTAssertFalse(file.isDeferred)
        XCTAssertFalse(file.needsOpen(toAppend: 1 << 20))
        XCTAssertEqual(try Self.sizeOnDisk(file.descriptor), 0, "opening writes nothing; the head waits")
        try body[100_000...].withUnsafeBytes { try file.append($0) }
        try commit(file)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/grown.bin"), Data(body))
    }

    /// Stopped part-way, a deferred file keeps what it received, as an open one does; refused,
    /// it leaves nothing behind.
    func testADeferredFileClosedPartWayKeepsItsBytesAndARefusedOneLeavesNothing() throws {
        let kept = try PartFile(folder: folder, relativePath: "kept.bin", hashing: false, deferred: true)
        let body = Self.pattern(10_000)
        try body.withUnsafeBytes { try kept.append($0) }
        kept.closeFile()
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/kept.bin.part"), Data(body))
        let refused = try PartFile(folder: folder + "/refused", relativePath: "r.bin", hashing: false, deferred: true)
        try body.withUnsafeBytes { try refused.append($0) }
        refused.remove()
        refused.closeFile()
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/refused"))
    }

    /// The first open of a deferred file refuses a part file with a second name, as every open
    /// does, and empties nothing: the other name's bytes stay.
    func testADeferredFileRefusesAHardLinkedPartWithoutEmptyingIt() throws {
        let outside = folder + "/outside.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: outside, contents: Data(repeating: 1, count: 4096)))
        try FileManager.default.createDirectory(atPath: folder + "/asset", withIntermediateDirectories: true)
        XCTAssertEqual(link(outside, folder + "/asset/f.bin.part"), 0)
        let file = try PartFile(folder: folder + "/asset", relativePath: "f.bin", hashing: false, deferred: true)
        try Self.pattern(100).withUnsafeBytes { try file.append($0) }
        XCTAssertThrowsError(try file.openDeferred())
        XCTAssertTrue(file.isDeferred)
        XCTAssertEqual(FileManager.default.contents(atPath: outside)?.count, 4096)
    }

    /// A body held whole in memory is written at its commit with O_DIRECT (the kernel's flags
    /// for the descriptor say so), its last part under a page through the page cache once
    /// O_DIRECT is off; a body under a page, or a file opened before its commit, never uses
    /// it. Every byte lands in place either way.
    func testACommittedBodyHeldInMemoryIsWrittenDirectly() throws {
        for (size, direct, after) in [(65_536, true, true), (70_001, true, false), (4_095, false, false)] {
            let name = "direct-\(size).bin"
            let file = try PartFile(folder: folder + "/\(size)", relativePath: name, hashing: false, deferred: true, folderLikelyNew: true)
            let body = Self.pattern(size)
            for start in stride(from: 0, to: size, by: 16_384) {
                try body[start..<min(start + 16_384, size)].withUnsafeBytes { try file.append($0) }
            }
            try file.openDeferred(committing: true)
            XCTAssertEqual(try Self.isDirect(file.descriptor), direct, "\(size) bytes: opened for the commit")
            XCTAssertTrue(try Self.isUnnamed(file.descriptor), "\(size) bytes: in the folder its commit made, no name yet")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/\(size)"), [])
            try file.syncDataAndRename()
            XCTAssertEqual(try Self.isDirect(file.descriptor), after, "\(size) bytes: after the write")
            file.closeFile()
            XCTAssertEqual(FileManager.default.contents(atPath: folder + "/\(size)/" + name), Data(body), "\(size) bytes")
        }
        let opened = try PartFile(folder: folder, relativePath: "opened.bin", hashing: false, deferred: true)
        try Self.pattern(65_536).withUnsafeBytes { try opened.append($0) }
        try opened.openDeferred()
        XCTAssertFalse(try Self.isDirect(opened.descriptor), "opened before its commit: more may come")
        XCTAssertFalse(try Self.isUnnamed(opened.descriptor), "opened before its commit: a part file, for a resume")
        opened.closeFile()
    }

    /// A file committed in a folder that was there before is a part file renamed, as a name
    /// may be taken there; one refused before it was named leaves nothing behind.
    func testACommitInAnExistingFolderRenamesAPartAndARefusedUnnamedFileLeavesNothing() throws {
        let body = Self.pattern(65_536)
        let existing = try PartFile(folder: folder, relativePath: "here.bin", hashing: false, deferred: true)
        try body.withUnsafeBytes { try existing.append($0) }
        try existing.openDeferred(committing: true)
        XCTAssertFalse(try Self.isUnnamed(existing.descriptor))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/here.bin.part"))
        try existing.syncDataAndRename()
        existing.closeFile()
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/here.bin"), Data(body))

        let refused = try PartFile(folder: folder + "/refused", relativePath: "r.bin", hashing: false, deferred: true, folderLikelyNew: true)
        try body.withUnsafeBytes { try refused.append($0) }
        try refused.openDeferred(committing: true)
        XCTAssertTrue(try Self.isUnnamed(refused.descriptor))
        refused.remove()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/refused"), [])
    }

    /// Where the file system refuses O_DIRECT, a body held in memory is written through the
    /// page cache, unnamed in a new folder and as a part file in one that was there.
    func testAFileSystemWithoutDirectWritesGetsThePageCache() throws {
        guard let disk = try SmallDisk.mountWithoutDirectIO(at: folder + "/ramfs") else {
            throw XCTSkip("mounting a ramfs needs root")
        }
        defer { disk.unmount() }
        let body = Self.pattern(70_001)
        for (relativePath, inside, name, likelyNew) in [("new/a.bin", disk.path + "/new", "a.bin", true), ("b.bin", disk.path, "b.bin", false)] {
            let file = try PartFile(folder: inside, relativePath: name, hashing: false, deferred: true, folderLikelyNew: likelyNew)
            try body.withUnsafeBytes { try file.append($0) }
            try file.openDeferred(committing: true)
            XCTAssertFalse(try Self.isDirect(file.descriptor), relativePath)
            XCTAssertEqual(try Self.isUnnamed(file.descriptor), likelyNew, relativePath)
            try file.syncDataAndRename()
            file.closeFile()
            XCTAssertEqual(FileManager.default.contents(atPath: disk.path + "/" + relativePath), Data(body), relativePath)
        }
    }

    /// Whether `descriptor` is a file without a name (O_TMPFILE): its /proc link says deleted.
    private static func isUnnamed(_ descriptor: Int32) throws -> Bool {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)").hasSuffix(" (deleted)")
    }

    /// Whether the kernel has O_DIRECT set on `descriptor` (proc(5)'s fdinfo, flags in octal).
    private static func isDirect(_ descriptor: Int32) throws -> Bool {
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
        let line = try XCTUnwrap(info.split(separator: "\n").first { $0.hasPrefix("flags:") })
        let flags = try XCTUnwrap(Int32(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        return flags & stash_o_direct() != 0
    }

    private func commit(_ file: PartFile) throws {
        let committed = expectation(description: "committed")
        let failure = Mutex<String?>(nil)
        FileSyncer().commit(file, durability: .alone) { error in
            failure.withLock { $0 = error.map { "\($0)" } }
            committed.fulfill()
        }
        wait(for: [committed], timeout: 60)
        XCTAssertNil(failure.withLock { $0 })
    }

    private static func sizeOnDisk(_ descriptor: Int32) throws -> Int64 {
        var info = stat()
        try SystemCallError.check("fstat", "part file") { fstat(descriptor, &info) }
        return Int64(info.st_size)
    }

    /// Bytes that tell where they are: a piece written twice or out of place shows.
    private static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) }
    }
}
