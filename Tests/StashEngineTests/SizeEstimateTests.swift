import StashCore
import XCTest

@testable import StashEngine

/// The total a download reports while some of its files' sizes are unknown.
final class SizeEstimateTests: XCTestCase {
    private func file(_ path: String, _ size: Int64?) -> DownloadFile {
        DownloadFile(url: "https://h/\(path)", path: path, size: size)
    }

    /// Sizes as servers answered them (Content-Length 5e18 twice) or as a registry row holds
    /// them: the total saturates at Int64.max instead of trapping.
    func testHugeSizesSaturate() {
        let huge: Int64 = 5_000_000_000_000_000_000
        XCTAssertEqual(SizeEstimate.total([file("a", huge), file("b", huge)]), .max)
        XCTAssertEqual(SizeEstimate.total([file("a", huge), file("b", huge), file("c", nil)]), .max)
        XCTAssertEqual(SizeEstimate.total([file("a", .max), file("b", nil), file("c", nil)]), .max)
        XCTAssertEqual(SizeEstimate.total([file("v/a", huge), file("v/b", huge), file("v/c", nil)], planned: 1), .max)
        XCTAssertEqual(SizeEstimate.total([file("v/a", .max), file("v/c", nil)], planned: .max), .max)
        XCTAssertEqual(SizeEstimate.total([file("a", 0), file("b", nil)]), 0)
    }

    func testSaturatingArithmetic() {
        XCTAssertEqual(Int64.max.addingSaturating(1), .max)
        XCTAssertEqual(Int64.min.addingSaturating(-1), .min)
        XCTAssertEqual(Int64.min.subtractingSaturating(1), .min)
        XCTAssertEqual(Int64.max.subtractingSaturating(-1), .max)
        XCTAssertEqual(Int64(-1).subtractingSaturating(.max), .min)
        XCTAssertEqual(Int64.max.multipliedSaturating(by: 2), .max)
        XCTAssertEqual(Int64.max.multipliedSaturating(by: -2), .min)
        XCTAssertEqual(Int64(3).multipliedSaturating(by: 4), 12)
        XCTAssertEqual([Int64.max, 1, -5].saturatingSum { $0 }, .max - 5 + 1 - 1 + 1 - 1)
        XCTAssertEqual([Int64.max, 1].saturatingSum { $0 }, .max)
    }

    func testABundleGuessesUnknownFilesFromTheAverage() {
        let files = [file("a", 100), file("b", 300), file("c", nil), file("d", nil)]
        XCTAssertEqual(SizeEstimate.total(files), 800)
        XCTAssertNil(SizeEstimate.total([file("a", nil)]))
    }

    func testAnHLSPackageGuessesPerFolderAndKeepsThePlaylistsFigure() {
        // Two video segments of 1 MB known, two unknown; four subtitle segments unknown.
        var files = [file("video/seg0.ts", 1_000_000), file("video/seg1.ts", 1_000_000), file("video/seg2.ts", nil), file("video/seg3.ts", nil)]
        files += (0..<4).map { file("subtitles/en/seg\($0).vtt", nil) }
        XCTAssertEqual(SizeEstimate.total(files, planned: 3_000_000), 4_000_000,
                       "unknown video segments are guessed from video ones; subtitles add nothing until one is known")
        XCTAssertEqual(SizeEstimate.total(files, planned: 5_000_000), 5_000_000, "never below the playlists' figure while sizes are missing")
        files[4].size = 500
        XCTAssertEqual(SizeEstimate.total(files, planned: 1_000), 4_000_000 + 2_000)
        for index in files.indices where files[index].size == nil { files[index].size = 10 }
        let exact: Int64 = 2_000_000 + 20 + 500 + 30
        XCTAssertEqual(SizeEstimate.total(files, planned: 9_999_999), exact, "exact once every size is known")
    }
}
