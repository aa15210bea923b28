import Foundation
import StashCore
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
}
