import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Forget hands a completed download's files over to the user and drops the record.
final class ForgetTests: DaemonTestCase {
    private func userFolder() throws -> String {
        try DaemonProcess.makeTemporaryDirectory(prefix: "stash-forget")
    }

    func testAForgottenFileIsTheUsersAndTheRecordIsGone() async throws {
        http.serve(path: "/keep.bin", size: 70_000, seed: 2)
        _ = try await client.addDownload(AddDownloadRequest(id: "keep", uri: http.url("/keep.bin")))
        try await waitFor("keep", .completed)
        let folder = try userFolder()

        let forgotten = try await client.forget(id: "keep", moveTo: folder)
        XCTAssertEqual(forgotten.assetPath, folder + "/keep.bin")
        XCTAssertEqual(try sha256Hex(ofFile: folder + "/keep.bin"), http.route("/keep.bin")!.body.sha256Hex)
        await assertFails(.notFound) { try await self.client.getDownload(id: "keep") }
        XCTAssertFalse(exists(daemon.dataDir + "/assets/keep"), "nothing is left in the data dir")
        // Its content is free again, and the moved file is not a loss the watch reports.
        let again = try await client.addDownload(AddDownloadRequest(uri: http.url("/keep.bin")))
        XCTAssertTrue(again.created)
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")
    }

    func testABundleMovesAsItsFolderAndNothingIsOverwritten() async throws {
        let specs = (0..<3).map { index -> BundleFileSpec in
            http.serve(path: "/fb/\(index).jpg", size: 3000 + index, seed: UInt64(index + 5))
            return BundleFileSpec(url: http.url("/fb/\(index).jpg"), path: "pages/\(index).jpg")
        }
        _ = try await client.addDownload(AddDownloadRequest(id: "fb", uri: "", files: specs))
        try await waitFor("fb", .completed)
        let folder = try userFolder()
        try FileManager.default.createDirectory(atPath: folder + "/fb", withIntermediateDirectories: false)

        let taken = await assertFails(.alreadyExists) { try await self.client.forget(id: "fb", moveTo: folder) }
        XCTAssertTrue(taken?.message.contains(folder + "/fb") ?? false, taken?.message ?? "")
        try FileManager.default.removeItem(atPath: folder + "/fb")
        await assertFails(.invalidArgument) { try await self.client.forget(id: "fb", moveTo: "relative/dir") }
        await assertFails(.invalidArgument) { try await self.client.forget(id: "fb", moveTo: folder + "/missing") }

        let forgotten = try await client.forget(id: "fb", moveTo: folder)
        XCTAssertEqual(forgotten.assetPath, folder + "/fb")
        for index in 0..<3 {
            XCTAssertEqual(try sha256Hex(ofFile: folder + "/fb/pages/\(index).jpg"), http.route("/fb/\(index).jpg")!.body.sha256Hex)
        }
        await assertFails(.notFound) { try await self.client.getDownload(id: "fb") }
    }

    func testOnlyACompletedDownloadIsForgotten() async throws {
        http.serve(path: "/slow.bin", size: 5_000_000)
        http.update(path: "/slow.bin") { $0.bytesPerSecond = 500_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "busy", uri: http.url("/slow.bin")))
        let refused = await assertFails(.failedPrecondition) { try await self.client.forget(id: "busy", moveTo: try self.userFolder()) }
        XCTAssertTrue(refused?.message.contains("COMPLETED") ?? false, refused?.message ?? "")
        let still = try await client.getDownload(id: "busy")
        XCTAssertNotEqual(still.state, .removing)
    }

    func testTheCommandLinePrintsWhereTheFilesAre() throws {
        http.serve(path: "/cli.bin", size: 1000)
        let add = try daemon.runCLI(["add", http.url("/cli.bin"), "--id", "cli", "--wait"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let folder = try userFolder()
        let forget = try daemon.runCLI(["forget", "cli", "--move-to", folder])
        XCTAssertEqual(forget.status, 0, forget.stderr)
        XCTAssertTrue(forget.stdout.contains(folder + "/cli.bin"), forget.stdout)
        XCTAssertTrue(exists(folder + "/cli.bin"))
    }
}
