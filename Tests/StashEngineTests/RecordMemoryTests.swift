import CLinux
import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// What a download costs the engine at rest: its record once (the engine's entry and the
/// record cache share it), its place in the list index, the queue. 100,000 downloads must fit
/// in 100 MB with the daemon's own; two copies of each record made that 180 MB.
final class RecordMemoryTests: XCTestCase {
    func testAQueuedDownloadAtRestCostsUnderAKilobyte() throws {
        let count = 20_000
        var state = EngineStateTests.makeState()
        let before = Self.heapInUse()
        for index in 0..<count {
            // Built from parts, as a registry row's strings are, so each has storage of its own.
            let id = String(format: "%012d", index)
            let url = "http://media.example.com/library/item\(index).mp4"
            let download = Download(
                id: id, uri: url, state: .queued, assetPath: "assets/\(id)/item\(index).mp4",
                files: [DownloadFile(url: url, path: "item\(index).mp4")])
            // As a start enters a loaded record.
            state.entries.cache.commit(id, download)
            _ = try state.on(.load(download))
        }
        let perRecord = (Self.heapInUse() - before) / count
        print("a queued download at rest: \(perRecord) bytes")
        XCTAssertLessThan(perRecord, 1_000, "bytes of heap per download at rest")
        XCTAssertEqual(state.entries.count, count)
    }

    /// Bytes malloc has handed out and not had back, over every arena.
    private static func heapInUse() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }
}
