import StashCore
import XCTest

@testable import StashEngine

/// Queries as reads of the state: a ListDownloads request checked (`ListRequest`), GetStats
/// and the count that keeps an idle stashd up.
final class QueryTests: XCTestCase {
    func testAListRequestTakesTheDefaultSizeAndATokenOfAPreviousPage() throws {
        let first = try ListRequest(states: [], pageSize: 0, pageToken: "", group: "")
        XCTAssertEqual(first.size, ListRequest.defaultPageSize)
        XCTAssertEqual(first.after, -1)
        let next = try ListRequest(states: [.queued], pageSize: ListRequest.maxPageSize, pageToken: "41", group: "a/b")
        XCTAssertEqual(next.size, 1000)
        XCTAssertEqual(next.after, 41)
    }

    func testABadListRequestNamesTheFieldAndTheLimit() {
        let refusals: [(Int, String, String, String)] = [
            (1001, "", "", "page_size 1001 is outside 0...1000"),
            (-1, "", "", "page_size -1 is outside 0...1000"),
            (10, "-3", "", "page_token '-3' is not a token"),
            (10, "x", "", "page_token 'x' is not a token"),
            (10, "", "/a", "group filter"),
        ]
        for (size, token, group, words) in refusals {
            XCTAssertThrowsError(try ListRequest(states: [], pageSize: size, pageToken: token, group: group)) { error in
                XCTAssertEqual((error as? StashError)?.code, .invalidArgument)
                XCTAssertTrue("\(error)".contains(words), "\(error) says \(words)")
            }
        }
    }

    /// GetStats counts every state and the speed of what runs; the busy count is what is
    /// preparing, queued, transferring or being removed, never what rests.
    func testStatsAndTheBusyCountReadTheState() throws {
        var state = EngineStateTests.makeState { $0.maxParallel = 1 }
        for id in ["a", "b", "c"] { _ = try EngineStateTests.add(EngineStateTests.download(id), to: &state) }
        _ = try state.on(.load(EngineStateTests.download("done", state: .completed)))
        _ = try state.on(.pause("c"))
        let stats = state.stats()
        XCTAssertEqual(stats.counts, [.preparing: 1, .queued: 1, .paused: 1, .completed: 1])
        XCTAssertEqual(stats.activeTransfers, 1)
        XCTAssertEqual(state.busyCount, 2)
        _ = try state.on(.cancel("b"))
        XCTAssertEqual(state.busyCount, 2, "a download being removed keeps stashd up")
        _ = try state.on(.pause("a"))
        XCTAssertEqual(state.busyCount, 1)
    }
}
