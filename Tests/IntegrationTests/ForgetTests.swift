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

    /// A file handed over into the data dir would be an orphan that the next repair deletes:
    /// move_to inside the data dir (or the data dir) is refused, however it is named.
    func testNothingIsHandedOverIntoTheDataDir() async throws {
        http.serve(path: "/in.bin", size: 3000, seed: 6)
        _ = try await client.addDownload(AddDownloadRequest(id: "in", uri: http.url("/in.bin")))
        try await waitFor("in", .completed)
        let data = daemon.dataDir
        let outside = try userFolder()
        try FileManager.default.createSymbolicLink(atPath: outside + "/into", withDestinationPath: data + "/assets")
        for (dir, why) in [
            (data + "/assets", "is inside stash's data dir"), (data + "/keys", "is inside stash's data dir"),
            (outside + "/into", "is inside stash's data dir"), (data, "is stash's data dir"),
        ] {
            let refused = await assertFails(.invalidArgument) { try await self.client.forget(id: "in", moveTo: dir) }
            let message = refused?.message ?? ""
            XCTAssertTrue(message.contains("move_to '\(dir)'") && message.contains(why), "\(dir): \(message)")
        }
        let still = try await client.getDownload(id: "in")
        XCTAssertEqual(still.state, .completed)
        let repair = try await client.verify(repair: true)
        XCTAssertTrue(repair.findings.isEmpty, "nothing was left in the data dir: \(repair.findings)")
        XCTAssertTrue(exists(data + "/assets/in/in.bin"))
    }

    /// A folder that holds the data dir (a home folder) takes a forgotten download, unless its
    /// name there is the data dir itself.
    func testAFolderHoldingTheDataDirTakesFilesButNotUnderTheDataDirsName() async throws {
        let holder = try userFolder()
        let nested = try await DaemonProcess.start(dataDir: holder + "/data")
        defer { XCTAssertEqual(nested.terminate(), 0) }
        let other = try await StashClient.connect(socketPath: nested.socketPath, clientName: name)
        let mine = try userFolder()
        try Data(repeating: 2, count: 100).write(to: URL(fileURLWithPath: mine + "/a.bin"))
        try FileManager.default.createDirectory(atPath: mine + "/pages", withIntermediateDirectories: false)
        try Data(repeating: 3, count: 10).write(to: URL(fileURLWithPath: mine + "/pages/1.jpg"))
        _ = try await other.adopt(AdoptRequest(path: mine + "/a.bin", id: "a", url: "https://example.com/a.bin"))
        _ = try await other.adopt(AdoptRequest(path: mine + "/pages", id: "data"))

        let moved = try await other.forget(id: "a", moveTo: holder)
        XCTAssertEqual(moved.assetPath, holder + "/a.bin")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: holder + "/a.bin")).count, 100)
        let clash = await assertFails(.invalidArgument) { try await other.forget(id: "data", moveTo: holder) }
        XCTAssertTrue(clash?.message.contains("is stash's data dir") ?? false, clash?.message ?? "")
        let kept = try await other.getDownload(id: "data")
        XCTAssertEqual(kept.state, .completed)
        await other.close()
    }

    /// Across file systems the files are copied under a temporary name and renamed at the end:
    /// stashd killed in the middle leaves no part under the final name, the download still
    /// COMPLETED, and the next start deletes the part; forgetting again then succeeds.
    func testAForgetKilledMidCopyLeavesNoPartUnderTheFinalName() async throws {
        guard let data = try SystemCallError.status(daemon.dataDir), let shm = try SystemCallError.status("/dev/shm"), data.st_dev != shm.st_dev else {
            throw XCTSkip("/dev/shm is not another file system here")
        }
        let target = "/dev/shm/stash-forget-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: target) }
        // Big enough for the copy to take a while; sparse, so it costs no disk here.
        let size: UInt64 = 512 << 20
        let mine = try userFolder()
        XCTAssertTrue(FileManager.default.createFile(atPath: mine + "/film.bin", contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: mine + "/film.bin"))
        try handle.truncate(atOffset: size)
        try handle.close()
        _ = try await client.adopt(AdoptRequest(path: mine + "/film.bin", id: "film", url: "https://example.com/film.bin"))

        let final = target + "/film.bin"
        let part = target + "/.stash-forget-film.part"
        let forgetting = Task { [client] in try await client!.forget(id: "film", moveTo: target) }
        // Killed as soon as bytes are on their way (as a crash would come).
        let deadline = ContinuousClock.now + .seconds(20)
        var copying: UInt64 = 0
        while ContinuousClock.now < deadline, copying == 0 {
            for path in [final, part] {
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? nil
                if let bytes, bytes > 0 { copying = bytes }
            }
            if copying == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        }
        daemon.kill(signal: SIGKILL)
        _ = daemon.waitForExit()
        _ = try? await forgetting.value
        XCTAssertGreaterThan(copying, 0, "the copy was seen under way")
        let left = (try? FileManager.default.attributesOfItem(atPath: final)[.size] as? UInt64) ?? nil
        XCTAssertTrue(left == nil || left == size, "the final name holds \(left ?? 0) of \(size) bytes")

        try await daemon.restart()
        try await reconnect()
        XCTAssertFalse(exists(part), "the start deletes the part of a forget cut short")
        if left == nil {
            let still = try await client.getDownload(id: "film")
            XCTAssertEqual(still.state, .completed)
            let moved = try await client.forget(id: "film", moveTo: target)
            XCTAssertEqual(moved.assetPath, final)
        }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: final)[.size] as? UInt64, size)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), ["film.bin"])
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
