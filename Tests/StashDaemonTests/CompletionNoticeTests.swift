import StashCore
import XCTest

@testable import StashDaemon

/// What a desktop notification says, for each `notify` policy.
final class CompletionNoticeTests: XCTestCase {
    private func download(_ id: String, _ state: DownloadState, title: String = "", group: String = "") -> Download {
        var download = Download(id: id, uri: "https://example.org/\(id)", title: title, state: state, assetPath: "")
        download.group = group
        if state == .failed { download.error = DownloadError(.http, "HTTP 404") }
        return download
    }

    func testEachPolicy() {
        let done = download("c12", .completed, title: "Chapter 12")
        XCTAssertNil(CompletionNotice.of(done, previous: .downloading, policy: .none, group: nil))
        XCTAssertEqual(CompletionNotice.of(done, previous: .downloading, policy: .all, group: nil),
                       CompletionNotice(summary: "Download complete", body: "Chapter 12"))
        XCTAssertEqual(CompletionNotice.of(download("x", .failed), previous: .downloading, policy: .groups, group: nil),
                       CompletionNotice(summary: "Download failed", body: "x: HTTP 404"))
        // A licence restored is not a download completing.
        XCTAssertNil(CompletionNotice.of(done, previous: .licenseExpired, policy: .all, group: nil))
    }

    func testAGroupIsToldOnceNothingOfItIsPending() {
        let member = download("p1", .completed, group: "one-piece")
        var totals = GroupTotals()
        totals.states = [.completed: 1, .downloading: 1]
        XCTAssertNil(CompletionNotice.of(member, previous: .downloading, policy: .groups, group: totals))
        totals.states = [.completed: 2, .failed: 1, .paused: 1]
        XCTAssertEqual(CompletionNotice.of(member, previous: .downloading, policy: .groups, group: totals),
                       CompletionNotice(summary: "Downloads finished, 1 failed", body: "one-piece: 2 complete, 1 failed"))
        // With all, a group's download is told alone.
        XCTAssertEqual(CompletionNotice.of(member, previous: .downloading, policy: .all, group: totals)?.summary, "Download complete")
    }
}
