import Foundation
import StashCore
import StashTestSupport
import XCTest

@testable import StashEngine

/// Random adds, changes (state, bytes, files), removals and take-and-put-backs of the engine's
/// downloads keep ListDownloads true: for random filters (states, a group and those under
/// it), the totals equal a recount over every download, and paging with random page sizes
/// returns every matching download once, in list order. Runs cross the compaction of removed
/// positions. The seed is printed; `STASH_TEST_SEED=<n>` replays it.
final class ListIndexPropertyTests: XCTestCase {
    private static let groups = ["", "a", "a/b", "a/b/c", "a-2", "a.x", "a/bc", "b", "b/a", "z/y/x"]
    private static let filters = ["", "a", "a/b", "a/b/c", "a-2", "b", "z", "z/y", "nothing", "a/b/c/d"]

    func testTotalsAndPagesMatchARecountAfterRandomChanges() throws {
        var random = SeededRandom.seeded()
        let seed = random.seed
        for run in 0..<6 {
            var state = EngineStateTests.makeState()
            var live: [String] = []
            var next = 0
            let steps = run < 2 ? 300 : 4_000
            for step in 0..<steps {
                let context = "seed \(seed), run \(run), step \(step)"
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<35 where live.count < 3_000 || run < 2:
                    let id = "d\(next)"
                    next += 1
                    state.entries[id] = DownloadEntry(download: Self.randomDownload(id, &random), lifecycle: DownloadLifecycle(state: .queued), seq: state.nextSeq)
                    state.nextSeq += 1
                    live.append(id)
                case 35..<70 where !live.isEmpty:
                    let id = live.randomElement(using: &random)!
                    guard var entry = state.entries[id] else { return XCTFail("\(id) lost: \(context)") }
                    Self.change(&entry.download, &random)
                    state.entries[id] = entry
                case 70..<80 where !live.isEmpty:
                    // Taken out and put back changed, as a fetch event's handling does.
                    let id = live.randomElement(using: &random)!
                    guard var entry = state.entries.take(id) else { return XCTFail("\(id) lost: \(context)") }
                    XCTAssertNil(state.entries[id], context)
                    Self.change(&entry.download, &random)
                    state.entries[id] = entry
                case 80..<100 where !live.isEmpty:
                    // Sometimes many at once, so removed positions pile up past a compaction.
                    let count = Int.random(in: 0..<10, using: &random) == 0 ? min(live.count, Int.random(in: 1...1_500, using: &random)) : 1
                    for _ in 0..<count {
                        let id = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                        state.entries[id] = nil
                    }
                default:
                    continue
                }
                if step % 97 == 0 || step == steps - 1 {
                    try check(&state, live: live, &random, context: context)
                    if testRun?.failureCount ?? 0 > 0 { return }
                }
            }
        }
    }

    private func check(_ state: inout EngineState, live: [String], _ random: inout SeededRandom, context: String) throws {
        XCTAssertEqual(state.entries.count, live.count, "downloads: \(context)")
        XCTAssertEqual(Set(state.order), Set(live), "ids: \(context)")
        for _ in 0..<4 {
            let states = DownloadState.allCases.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            let group = Self.filters.randomElement(using: &random)!
            let size = [1, 2, 7, 100, 1000].randomElement(using: &random)!
            let label = "states \(states.map(\.name)), group '\(group)', pages of \(size): \(context)"
            // The recount: every download in list order, filtered as ListDownloads filters.
            var expected = GroupTotals()
            var expectedIDs: [String] = []
            for entry in state.entries.values
            where (states.isEmpty || states.contains(entry.download.state)) && DownloadRequestRules.group(entry.download.group, isIn: group) {
                expected.add(entry.download)
                expectedIDs.append(entry.download.id)
            }
            var listed: [String] = []
            var after = -1
            var pages = 0
            while true {
                let page = state.list(states: states, size: size, after: after, group: group)
                XCTAssertEqual(page.total, expectedIDs.count, "total: \(label)")
                XCTAssertEqual(page.totals, expected, "totals: \(label)")
                XCTAssertLessThanOrEqual(page.downloads.count, size, label)
                listed += page.downloads.map(\.id)
                pages += 1
                if page.nextPageToken.isEmpty { break }
                XCTAssertFalse(page.downloads.isEmpty, "an empty page with a next token: \(label)")
                after = try XCTUnwrap(Int(page.nextPageToken), label)
                if pages > expectedIDs.count + 1 { return XCTFail("paging does not end: \(label)") }
            }
            XCTAssertEqual(listed, expectedIDs, "pages: \(label)")
        }
    }

    private static func randomDownload(_ id: String, _ random: inout SeededRandom) -> Download {
        var download = Download(id: id, uri: "http://h.test/\(id)", state: DownloadState.allCases.randomElement(using: &random)!, assetPath: "assets/\(id)/f")
        download.group = groups.randomElement(using: &random)!
        change(&download, &random)
        return download
    }

    private static func change(_ download: inout Download, _ random: inout SeededRandom) {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            download.state = DownloadState.allCases.randomElement(using: &random)!
        case 1:
            // Now and then near the top, so totals saturate and come down again.
            download.downloadedBytes = Int.random(in: 0..<8, using: &random) == 0 ? Int64.max - Int64.random(in: 0...1000, using: &random)
                : Int64.random(in: 0...1 << 30, using: &random)
        case 2:
            download.totalBytes = Bool.random(using: &random) ? nil : Int64.random(in: 0...Int64.max, using: &random)
        default:
            download.filesTotal = Int.random(in: 0...50, using: &random)
            download.filesDone = Int.random(in: 0...download.filesTotal, using: &random)
        }
    }
}
