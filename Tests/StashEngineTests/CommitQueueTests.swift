import Foundation
import Logging
import StashCore
import StashStore
import XCTest

@testable import StashEngine

/// The journal against a real registry: however its changes fall into batches, what lands on
/// disk is the last word on each download and each file, and events follow their commits.
final class CommitQueueTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "stash-commits-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func bundle(_ id: String, files: Int = 3) -> Download {
        Download(
            id: id, uri: "", assetPath: "assets/\(id)", createdAt: Date(timeIntervalSince1970: 1), isBundle: true,
            files: (0..<files).map { DownloadFile(url: "https://h/\(id)/\($0)", path: "p/\($0)") })
    }

    func testTheLastChangeOfEachDownloadAndFileLandsWhateverTheBatches() async throws {
        let registry = try Registry(path: directory + "/stash.sqlite", logger: Logger(label: "test"))
        let bus = EventBus()
        let queue = CommitQueue(registry: registry, bus: bus)
        let events = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0)

        // Added, a file learned its size, then the record moved on (the engine's record there
        // has the file as it was at add time): all submitted back to back.
        var a = bundle("a")
        queue.submit(.add(a), event: .stateChanged(a, previous: .notDownloaded))
        var learned = a.files[1]
        learned.size = 4242
        learned.etag = "\"e\""
        queue.submit(.saveFile(id: "a", index: 1, file: learned), event: nil)
        a.state = .downloading
        queue.submit(.save(a), event: .stateChanged(a, previous: .queued))
        // Added and removed: nothing stays.
        let b = bundle("b")
        queue.submit(.add(b), event: nil)
        queue.submit(.delete("b"), event: .removed(id: "b"))
        // Removed and added again with other files: only the new files stay.
        let c = bundle("c", files: 2)
        queue.submit(.add(c), event: nil)
        queue.submit(.delete("c"), event: nil)
        let c2 = bundle("c", files: 5)
        try await queue.submit(.add(c2), event: nil).wait()

        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads.map(\.id), ["a", "c"])
        XCTAssertEqual(loaded.downloads[0].state, .downloading)
        XCTAssertEqual(loaded.downloads[0].files[1].size, 4242)
        XCTAssertEqual(loaded.downloads[0].files[1].etag, "\"e\"")
        XCTAssertEqual(loaded.downloads[0].files.count, 3)
        XCTAssertEqual(loaded.downloads[1].files.map(\.url), c2.files.map(\.url))

        // Events in submission order, each after its commit.
        var seen: [String] = []
        for await event in events {
            switch event.kind {
            case .stateChanged(let download, _): seen.append("\(download.id):\(download.state.name)")
            case .removed(let id): seen.append("\(id):removed")
            case .progress, .license, .eventsLost, .exportProgress, .settingsChanged: break
            }
            if seen.count == 3 { break }
        }
        XCTAssertEqual(seen, ["a:QUEUED", "a:DOWNLOADING", "b:removed"])
    }

    /// Whether a change moves only the state and progress or more, every change lands: a
    /// title, a priority or a group changed along with a state (which the queue must write
    /// whole) is on disk as surely as the state.
    func testEveryColumnAChangeMovesLandsWhetherTheRowIsWrittenWholeOrNot() async throws {
        let registry = try Registry(path: directory + "/stash.sqlite", logger: Logger(label: "test"))
        let queue = CommitQueue(registry: registry, bus: EventBus())
        var download = Download(
            id: "d", uri: "https://h/d", assetPath: "assets/d/d", createdAt: Date(timeIntervalSince1970: 1), files: [DownloadFile(url: "https://h/d", path: "d")])
        var commits = 0
        func commit(_ change: (inout Download) -> Void, line: UInt = #line) async throws {
            change(&download)
            try await queue.submit(.save(download), event: nil).wait()
            let stored = try XCTUnwrap(registry.loadAll().downloads.first, line: line)
            let facts = { (d: Download) in "\(d.state.name) '\(d.title)' \(d.priority) '\(d.group)' \(d.downloadedBytes)/\(d.totalBytes ?? -1) '\(d.stateReason)'" }
            XCTAssertEqual(stored, download, "stored \(facts(stored)), committed \(facts(download))", line: line)
            commits += 1
        }
        try await queue.submit(.add(download), event: nil).wait()
        try await commit { $0.state = .preparing }
        try await commit {
            $0.state = .downloading
            $0.downloadedBytes = 10
            $0.totalBytes = 100
        }
        try await commit {
            $0.title = "a title"
            $0.downloadedBytes = 20
        }
        try await commit {
            $0.priority = .high
            $0.stateReason = "moved up"
        }
        try await commit {
            $0.group = "shows/one"
            $0.state = .queued
        }
        try await commit {
            $0.state = .failed
            $0.error = DownloadError(.http, "server said 503", httpStatus: 503)
            $0.completedAt = Date(timeIntervalSince1970: 5)
        }
        // At rest: the next change is written whole.
        try await commit {
            $0.title = "another title"
            $0.state = .queued
            $0.error = nil
            $0.completedAt = nil
        }
        XCTAssertEqual(commits, 7)
    }

    /// Readers (GetDownload, HasDownload) see a record once its transaction is durable, and
    /// before its event goes out.
    func testCommittedRecordsReachTheCacheBeforeTheirEvents() async throws {
        let registry = try Registry(path: directory + "/stash.sqlite", logger: Logger(label: "test"))
        let bus = EventBus()
        let cache = RecordCache()
        let queue = CommitQueue(registry: registry, bus: bus, cache: cache)
        let events = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0)
        var a = bundle("a")
        queue.submit(.add(a), event: .stateChanged(a, previous: .notDownloaded))
        a.state = .paused
        queue.submit(.save(a), event: .stateChanged(a, previous: .queued))
        queue.submit(.delete("a"), event: .removed(id: "a"))
        var seen: [String] = []
        for await event in events {
            switch event.kind {
            case .stateChanged(let download, _):
                seen.append("\(download.state.name) cache:\(cache.get("a")?.state.name ?? "none")")
            case .removed:
                seen.append("removed cache:\(cache.get("a")?.state.name ?? "none")")
            case .progress, .license, .eventsLost, .exportProgress, .settingsChanged: break
            }
            if seen.count == 3 { break }
        }
        // Each event finds the cache at its own commit or later, never before it.
        XCTAssertTrue(["QUEUED cache:QUEUED", "QUEUED cache:PAUSED", "QUEUED cache:none"].contains(seen[0]), seen[0])
        XCTAssertTrue(["PAUSED cache:PAUSED", "PAUSED cache:none"].contains(seen[1]), seen[1])
        XCTAssertEqual(seen[2], "removed cache:none")
        try await queue.submit(.add(bundle("b")), event: nil).wait()
        XCTAssertEqual(cache.get("b")?.files, [], "a bundle is cached without its file list")
        XCTAssertEqual(cache.get("b")?.filesTotal, 3)
    }

    func testANotedFileWaitsForItsDownloadsNextSave() async throws {
        let registry = try Registry(path: directory + "/stash.sqlite", logger: Logger(label: "test"))
        let queue = CommitQueue(registry: registry, bus: EventBus())
        var a = bundle("a")
        let b = bundle("b")
        queue.submit(.add(a), event: nil)
        try await queue.submit(.add(b), event: nil).wait()
        func sizes(_ id: String) throws -> [Int64?]? {
            try registry.loadAll().downloads.first { $0.id == id }?.files.map(\.size)
        }
        func noted(_ download: Download, _ index: Int, size: Int64) -> DownloadFile {
            var file = download.files[index]
            file.size = size
            return file
        }

        // Noted, then another download saved: nothing of "a" is written.
        queue.submit(.noteFile(id: "a", index: 0, file: noted(a, 0, size: 100)), event: nil)
        queue.submit(.noteFile(id: "a", index: 1, file: noted(a, 1, size: 101)), event: nil)
        try await queue.submit(.save(b), event: nil).wait()
        XCTAssertEqual(try sizes("a"), [nil, nil, nil])

        // A saveFile after a note of the same file is newer: the note must not overwrite it.
        queue.submit(.saveFile(id: "a", index: 1, file: noted(a, 1, size: 201)), event: nil)
        a.state = .downloading
        try await queue.submit(.save(a), event: nil).wait()
        XCTAssertEqual(try sizes("a"), [100, 201, nil])

        // Written once: a later save does not bring back an older note.
        queue.submit(.saveFile(id: "a", index: 0, file: noted(a, 0, size: 300)), event: nil)
        try await queue.submit(.save(a), event: nil).wait()
        XCTAssertEqual(try sizes("a"), [300, 201, nil])

        // A note of a download added again with other files, or removed, is dropped.
        queue.submit(.noteFile(id: "a", index: 2, file: noted(a, 2, size: 102)), event: nil)
        let a2 = bundle("a", files: 3)
        queue.submit(.add(a2), event: nil)
        try await queue.submit(.save(a2), event: nil).wait()
        XCTAssertEqual(try sizes("a"), [nil, nil, nil])
        queue.submit(.noteFile(id: "b", index: 0, file: noted(b, 0, size: 7)), event: nil)
        queue.submit(.delete("b"), event: nil)
        let b2 = bundle("b")
        queue.submit(.add(b2), event: nil)
        try await queue.submit(.save(b2), event: nil).wait()
        XCTAssertEqual(try sizes("b"), [nil, nil, nil])
    }
}
