import StashCore
import XCTest

@testable import StashEngine

/// The end of a removal, decided by the state: what is deleted, and the record's end.
final class EngineStateRemovalTests: XCTestCase {
    /// Only a download being removed is deleted: its folder and, for HLS, its keys; then its
    /// record, before the event, and it leaves the list and the dedupe index.
    func testARemovedDownloadsRecordIsDeletedBeforeTheEvent() throws {
        var state = EngineStateTests.makeState()
        let download = EngineStateTests.download("a")
        _ = try EngineStateTests.add(download, to: &state)
        XCTAssertNil(state.deletion(of: "a"), "not being removed")
        XCTAssertTrue(try state.on(.removed("a")).isEmpty, "a download not REMOVING stays")
        _ = try state.on(.cancel("a"))
        XCTAssertEqual(state.deletion(of: "a"), AssetDeletion(id: "a", folder: "/data/assets/a", deletesKeys: false))
        XCTAssertEqual(EngineStateTests.describe(try state.on(.removed("a"))), ["commit delete a, then publish removed(id: \"a\")"])
        XCTAssertNil(state.entries["a"])
        XCTAssertEqual(state.order, [])
        XCTAssertNil(state.holder(ofContent: EngineState.contentKey(download), hls: nil, drm: nil))
        XCTAssertTrue(try state.on(.removed("a")).isEmpty, "a second end changes nothing")
        XCTAssertNil(state.deletion(of: "a"))
    }

    /// A download another cancel removed and a client added again meanwhile is left alone.
    func testADownloadAddedAgainIsNotDeleted() throws {
        var state = EngineStateTests.makeState()
        _ = try EngineStateTests.add(EngineStateTests.download("a"), to: &state)
        _ = try state.on(.cancel("a"))
        _ = try state.on(.removed("a"))
        _ = try EngineStateTests.add(EngineStateTests.download("a"), to: &state)
        XCTAssertNil(state.deletion(of: "a"))
        XCTAssertTrue(try state.on(.removed("a")).isEmpty)
        XCTAssertEqual(state.entries["a"]?.download.state, .preparing)
    }

    func testAnHLSDownloadsKeysGoWithIt() throws {
        var state = EngineStateTests.makeState()
        var download = EngineStateTests.download("a")
        download.hls = HLSOptions()
        _ = try state.on(.load(download))
        _ = try state.on(.cancel("a"))
        XCTAssertEqual(state.deletion(of: "a")?.deletesKeys, true)
    }
}
