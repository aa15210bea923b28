import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// An add checked (`AddRequest`) and decided (`EngineState.decideAdd`): new, already there, or
/// content another download holds. No actor, no registry.
final class AddDecisionTests: XCTestCase {
    private var generator = SystemRandomNumberGenerator()

    private func decide(_ request: AddRequest, in state: EngineState) throws -> EngineState.AddDecision {
        var state = state
        return try state.decideAdd(request.validated(), using: &generator)
    }

    private func assertAlreadyExists(
        _ request: AddRequest, in state: EngineState, mentions words: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try decide(request, in: state), file: file, line: line) { error in
            XCTAssertEqual((error as? StashError)?.code, .alreadyExists, "\(error)", file: file, line: line)
            for word in words { XCTAssertTrue("\(error)".contains(word), "\(error) names \(word)", file: file, line: line) }
        }
    }

    private func state(with downloads: [Download]) throws -> EngineState {
        var state = EngineStateTests.makeState()
        for download in downloads { _ = try EngineStateTests.add(download, to: &state) }
        return state
    }

    private func created(_ decision: EngineState.AddDecision, file: StaticString = #filePath, line: UInt = #line) -> Download? {
        guard case .create(let download) = decision else {
            XCTFail("\(decision) is not a new download", file: file, line: line)
            return nil
        }
        return download
    }

    func testANewDownloadIsQueuedInItsOwnFolder() throws {
        let state = try state(with: [])
        let single = try XCTUnwrap(created(try decide(AddRequest(id: "a", uri: "http://h.test/v.mp4"), in: state)))
        XCTAssertEqual(single.state, .queued)
        XCTAssertEqual(single.assetPath, "assets/a/v.mp4")
        XCTAssertEqual(single.createdAt, Date(timeIntervalSince1970: 2_000_000_000))
        let bundle = try XCTUnwrap(
            created(try decide(AddRequest(id: "b", files: [BundleFileSpec(url: "http://h.test/1", path: "p/1.jpg", size: 7)]), in: state)))
        XCTAssertEqual(bundle.assetPath, "assets/b")
        XCTAssertEqual(bundle.totalBytes, 7)
    }

    /// The same id with the same content is the download already there (an add sent twice);
    /// with other content it is ALREADY_EXISTS naming what the id holds.
    func testAnIDAskedAgainIsTheExistingDownloadOnlyForTheSameContent() throws {
        let state = try state(with: [EngineStateTests.download("a")])
        let existing = try XCTUnwrap(state.entries["a"]?.download)
        XCTAssertEqual(try decide(AddRequest(id: "a", uri: existing.uri), in: state), .existing(existing))
        assertAlreadyExists(AddRequest(id: "a", uri: "http://h.test/other"), in: state, mentions: ["'a'", "uri '\(existing.uri)'"])
        assertAlreadyExists(
            AddRequest(id: "a", files: [BundleFileSpec(url: existing.uri, path: "0.bin")]), in: state, mentions: ["'a'", "uri '\(existing.uri)'"])
    }

    /// Content another download holds is that download when no id is given (answered once its
    /// add is durable), ALREADY_EXISTS with an id, and a new download with force.
    func testContentHeldByAnotherIsThatDownloadUnlessAnIDOrForceSaysOtherwise() throws {
        let state = try state(with: [EngineStateTests.download("a")])
        let uri = try XCTUnwrap(state.entries["a"]?.download.uri)
        XCTAssertEqual(try decide(AddRequest(uri: uri), in: state), .heldBy("a"))
        assertAlreadyExists(AddRequest(id: "b", uri: uri), in: state, mentions: ["'a'", "force", "'b'"])
        XCTAssertEqual(created(try decide(AddRequest(id: "b", uri: uri, force: true), in: state))?.id, "b")
        XCTAssertEqual(state.heldContent("a")?.id, "a")
    }

    /// A download found by id or content that lacks a text track the add asks for is not the
    /// answer: adding the track to it is the client's call.
    func testAHolderWithoutTheTextTracksAskedForIsRefused() throws {
        let state = try state(with: [EngineStateTests.download("a")])
        let uri = try XCTUnwrap(state.entries["a"]?.download.uri)
        let track = TextTrack(uri: "http://h.test/fr.vtt", language: "fr")
        assertAlreadyExists(AddRequest(uri: uri, textTracks: [track]), in: state, mentions: ["'a'", "fr (http://h.test/fr.vtt)", "AddSubtitles"])
        assertAlreadyExists(AddRequest(id: "a", uri: uri, textTracks: [track]), in: state, mentions: ["'a'", "fr (http://h.test/fr.vtt)"])
    }

    /// A download being removed holds nothing: an add of its content is a new download, and
    /// an add that waited for it stands on its own.
    func testADownloadBeingRemovedHoldsNoContent() throws {
        var state = try state(with: [EngineStateTests.download("a")])
        let uri = try XCTUnwrap(state.entries["a"]?.download.uri)
        _ = try state.on(.cancel("a"))
        XCTAssertNil(state.heldContent("a"))
        let download = try XCTUnwrap(created(try decide(AddRequest(uri: uri), in: state)))
        XCTAssertNotEqual(download.id, "a")
    }

    /// A generated id is 12 characters of [a-z0-9], the time of the add on the engine's clock
    /// and then one random word, and never one a download has.
    func testAGeneratedIDIsTwelveCharactersAndFree() throws {
        // `makeState`'s clock: 2033-05-18T03:33:20Z.
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        var first = Words([0x1234_5678_9ABC_DEF0])
        let taken = GeneratedID.make(at: now, using: &first)
        XCTAssertEqual(taken.count, 12)
        XCTAssertTrue(taken.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }, taken)
        var state = try state(with: [EngineStateTests.download(taken)])
        var words = Words([0x1234_5678_9ABC_DEF0, 42])
        let download = try XCTUnwrap(created(try state.decideAdd(AddRequest(uri: "http://h.test/new").validated(), using: &words)))
        var second = Words([42])
        XCTAssertEqual(download.id, GeneratedID.make(at: now, using: &second))
        XCTAssertNotEqual(download.id, taken)
        XCTAssertEqual(download.id.prefix(8), taken.prefix(8), "the same millisecond, the same time part")
        _ = try state.on(.add(download))
        XCTAssertThrowsError(try state.on(.add(download)), "an id entered twice") { error in
            XCTAssertEqual((error as? StashError)?.code, .alreadyExists)
        }
    }

    /// Ids made later sort after those made earlier, whatever the random part: the adds of one
    /// commit share the registry's rightmost b-tree leaves. A clock outside 2020-2109 gives an
    /// id all the same.
    func testGeneratedIDsSortByTheTimeTheyWereMade() {
        var words = Words([UInt64(1) << 62, 0, 7, 1 << 40] + Array(repeating: 99, count: 6))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let ids = [0, 0.001, 1, 86_400 * 365].map { GeneratedID.make(at: start.addingTimeInterval($0), using: &words) }
        XCTAssertEqual(ids, ids.sorted(), "\(ids)")
        XCTAssertEqual(Set(ids.map { $0.prefix(8) }).count, 4, "\(ids)")
        for date in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1e12), Date(timeIntervalSince1970: 1e15), Date.distantFuture] {
            let id = GeneratedID.make(at: date, using: &words)
            XCTAssertEqual(id.count, 12, id)
        }
        XCTAssertEqual(GeneratedID.make(at: Date(timeIntervalSince1970: 0), using: &words).prefix(8), "00000000")
        XCTAssertEqual(GeneratedID.make(at: Date(timeIntervalSince1970: 1e15), using: &words).prefix(8), "zzzzzzzz")
    }

    /// Each field's rule, first broken first, naming the field.
    func testARequestIsCheckedFieldByField() {
        let refusals: [(AddRequest, String)] = [
            (AddRequest(files: [BundleFileSpec(url: "http://h.test/1")], drm: DRMParams(licenseServer: "https://l.test")), "drm applies to HLS"),
            (AddRequest(uri: "http://h.test/v", files: [BundleFileSpec(url: "http://h.test/1")]), "give either uri or files"),
            (AddRequest(uri: "http://h.test/v.m3u8", sha256: String(repeating: "0", count: 64)), "sha256 applies to a single file, not to an HLS"),
            (AddRequest(id: "a/b", uri: "http://h.test/v"), "id"),
        ]
        for (request, words) in refusals {
            XCTAssertThrowsError(try request.validated()) { error in
                XCTAssertEqual((error as? StashError)?.code, .invalidArgument, "\(error)")
                XCTAssertTrue("\(error)".contains(words), "\(error) says \(words)")
            }
        }
    }
}

/// Random words given in advance.
private struct Words: RandomNumberGenerator {
    var words: [UInt64]
    init(_ words: [UInt64]) { self.words = words }
    mutating func next() -> UInt64 { words.removeFirst() }
}
