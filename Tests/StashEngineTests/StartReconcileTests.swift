import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// What a start reads of the disk (`LoadedFileSizes`): the part file of a download that is not
/// complete gives its bytes, whatever the registry noted; a download without a folder has no
/// file, and a complete one without its file fails. A listing of `assets/` spares the stats of
/// the downloads without a folder, and must tell the same as the stats did.
final class StartReconcileTests: XCTestCase {
    func testAStartReadsPartFilesAndKnowsAMissingFolderHoldsNothing() async throws {
        let harness = try await EngineHarness { dataDir, registry in
            func download(_ id: String, _ state: DownloadState, noted: Int64) -> Download {
                let url = EngineHarness.url(id)
                var download = Download(
                    id: id, uri: url, state: state, downloadedBytes: noted, totalBytes: 1000, assetPath: "assets/\(id)/\(id).bin",
                    createdAt: Date(timeIntervalSince1970: 2_000_000_000), files: [DownloadFile(url: url, path: "\(id).bin", size: 1000)])
                if state == .completed { download.completedAt = Date(timeIntervalSince1970: 2_000_000_100) }
                return download
            }
            try await registry.save([
                download("partial", .paused, noted: 100), download("nofolder", .paused, noted: 500),
                download("whole", .completed, noted: 1000), download("gone", .completed, noted: 1000),
            ])
            let assets = dataDir + "/assets"
            for id in ["partial", "whole"] { try FileManager.default.createDirectory(atPath: "\(assets)/\(id)", withIntermediateDirectories: true) }
            try Data(count: 300).write(to: URL(fileURLWithPath: "\(assets)/partial/partial.bin.part"))
            try Data(count: 1000).write(to: URL(fileURLWithPath: "\(assets)/whole/whole.bin"))
            // A complete download's part file is not its bytes.
            try Data(count: 10).write(to: URL(fileURLWithPath: "\(assets)/whole/whole.bin.part"))
        }
        let partial = try await harness.record("partial")
        XCTAssertEqual(partial.state, .paused)
        XCTAssertEqual(partial.downloadedBytes, 300, "the part file's bytes, not the 100 the registry noted")
        let noFolder = try await harness.record("nofolder")
        XCTAssertEqual(noFolder.downloadedBytes, 0, "no folder, no bytes, whatever the registry noted")
        XCTAssertEqual(noFolder.state, .paused)
        XCTAssertNil(noFolder.error)
        let whole = try await harness.record("whole")
        XCTAssertEqual(whole.state, .completed)
        XCTAssertEqual(whole.downloadedBytes, 1000)
        XCTAssertEqual(whole.filesDone, 1)
        let gone = try await harness.record("gone")
        XCTAssertEqual(gone.state, .failed)
        XCTAssertEqual(gone.error?.kind, .storage)
        XCTAssertEqual(gone.downloadedBytes, 0)
        await harness.stop()
    }
}
