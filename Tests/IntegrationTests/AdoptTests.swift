import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Adopt takes files already on disk as COMPLETED downloads, so they are not fetched again.
final class AdoptTests: DaemonTestCase {
    private func userFolder() throws -> String {
        try DaemonProcess.makeTemporaryDirectory(prefix: "stash-adopt")
    }

    func testAFileWithItsURLIsACompletedDownloadThatVerifiesClean() async throws {
        http.serve(path: "/had.bin", size: 40_000, seed: 8)
        let route = http.route("/had.bin")!
        let body = Data(route.body.slice(0..<route.body.count))
        let folder = try userFolder()
        let file = folder + "/my copy.bin"
        try body.write(to: URL(fileURLWithPath: file))
        let digest = http.route("/had.bin")!.body.sha256Hex

        let adopted = try await client.adopt(AdoptRequest(path: file, id: "had", url: http.url("/had.bin"), sha256: digest))
        XCTAssertEqual(adopted.state, .completed)
        XCTAssertEqual(adopted.downloadedBytes, 40_000)
        XCTAssertEqual(adopted.assetPath, daemon.dataDir + "/assets/had/had.bin")
        XCTAssertFalse(exists(file), "moved, not copied")
        XCTAssertEqual(try sha256Hex(ofFile: adopted.assetPath), digest)
        XCTAssertTrue(http.requests(for: "/had.bin").isEmpty, "nothing is fetched")
        let clean = try await client.verify(deep: true)
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")
        // It holds its URL now: adding it is the adopted download.
        let again = try await client.addDownload(AddDownloadRequest(uri: http.url("/had.bin")))
        XCTAssertEqual(again.download.id, "had")
        XCTAssertFalse(again.created)
        // And it survives a restart as it is.
        try await daemon.restart()
        try await reconnect()
        let after = try await client.getDownload(id: "had")
        XCTAssertEqual(after.state, .completed)
    }

    func testAFolderIsABundleAndALinkLeavesTheUsersFilesInPlace() async throws {
        let folder = try userFolder() + "/chapter-12"
        try FileManager.default.createDirectory(atPath: folder + "/pages", withIntermediateDirectories: true)
        for index in 0..<3 {
            try Data(repeating: UInt8(index), count: 1000 + index).write(to: URL(fileURLWithPath: folder + "/pages/\(index).jpg"))
        }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/metadata.json"))

        let adopted = try await client.adopt(AdoptRequest(path: folder, id: "ch12", link: true))
        XCTAssertEqual(adopted.state, .completed)
        XCTAssertTrue(adopted.isBundle)
        XCTAssertEqual(adopted.filesTotal, 4)
        XCTAssertEqual(adopted.downloadedBytes, 1000 + 1001 + 1002 + 2)
        XCTAssertTrue(exists(folder + "/pages/1.jpg"), "linked: the user's files stay")
        XCTAssertTrue(exists(daemon.dataDir + "/assets/ch12/pages/1.jpg"))
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")
    }

    func testWhatCannotBeAdoptedIsRefusedAndLeftWhereItIs() async throws {
        let folder = try userFolder()
        let file = folder + "/x.bin"
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: file))
        let mismatch = await assertFails(.invalidArgument) {
            try await self.client.adopt(AdoptRequest(path: file, id: "x", sha256: String(repeating: "0", count: 64)))
        }
        XCTAssertTrue(mismatch?.message.contains("sha256") ?? false, mismatch?.message ?? "")
        XCTAssertTrue(exists(file))
        await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: "x.bin", id: "x")) }
        await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: folder + "/none", id: "x")) }
        await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: file, id: "../x")) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: file)
        await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: folder + "/link", id: "x")) }
        let withLink = await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: folder, id: "x")) }
        XCTAssertTrue(withLink?.message.contains("symlinks") ?? false, withLink?.message ?? "")
        XCTAssertTrue(exists(file), "a refused folder is left whole")
        _ = try await client.adopt(AdoptRequest(path: file, id: "x"))
        let taken = FileManager.default.createFile(atPath: folder + "/y.bin", contents: Data([1]))
        XCTAssertTrue(taken)
        await assertFails(.alreadyExists) { try await self.client.adopt(AdoptRequest(path: folder + "/y.bin", id: "x")) }
    }

    /// The registry, the lock, the keys and another download's folder are stash's own: adopt
    /// takes none of them, by whatever path they are named, nor a folder that holds the data dir.
    func testNothingOfTheDataDirIsTakenNorAFolderThatHoldsIt() async throws {
        http.serve(path: "/mine.bin", size: 2000, seed: 4)
        _ = try await client.addDownload(AddDownloadRequest(id: "mine", uri: http.url("/mine.bin")))
        try await waitFor("mine", .completed)
        let data = daemon.dataDir
        let outside = try userFolder()
        try FileManager.default.createSymbolicLink(atPath: outside + "/into", withDestinationPath: data)
        let own = ["stash.sqlite", "stashd.lock", "keys", "assets/mine", "assets"].map { data + "/" + $0 }
        for path in own { XCTAssertTrue(exists(path), path) }
        let cases: [(path: String, link: Bool, why: String)] = own.map { ($0, false, "is inside stash's data dir") } + [
            (data + "/stash.sqlite", true, "is inside stash's data dir"),
            (data + "/assets/../stash.sqlite", false, "is inside stash's data dir"),
            (outside + "/into/keys", false, "is inside stash's data dir"),
            (data, false, "is stash's data dir"),
            (data + "/", true, "is stash's data dir"),
        ]
        for (path, link, why) in cases {
            let refused = await assertFails(.invalidArgument) { try await self.client.adopt(AdoptRequest(path: path, id: "taken", link: link)) }
            let message = refused?.message ?? ""
            XCTAssertTrue(message.contains("path '\(path)'") && message.contains(why), "\(path): \(message)")
        }
        for path in own { XCTAssertTrue(exists(path), "\(path) stays where it is") }
        XCTAssertFalse(exists(data + "/assets/taken"))

        // The registry is whole: after a restart the download is there and verify finds nothing.
        try await daemon.restart()
        try await reconnect()
        let kept = try await client.getDownload(id: "mine")
        XCTAssertEqual(kept.state, .completed)
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "\(clean.findings)")

        // A folder that holds a data dir: a second stashd whose data dir is inside one.
        let holder = try userFolder()
        let nested = try await DaemonProcess.start(dataDir: holder + "/data")
        defer { XCTAssertEqual(nested.terminate(), 0) }
        let other = try await StashClient.connect(socketPath: nested.socketPath, clientName: name)
        let holding = await assertFails(.invalidArgument) { try await other.adopt(AdoptRequest(path: holder, id: "all")) }
        XCTAssertTrue(holding?.message.contains("contains stash's data dir \(holder)/data") ?? false, holding?.message ?? "")
        await other.close()
        XCTAssertTrue(exists(holder + "/data/stash.sqlite"))
    }

    /// From another file system the files are copied under a temporary name, renamed into
    /// place, and the originals deleted once the download is recorded.
    func testFilesFromAnotherFileSystemAreCopiedThenTheOriginalsGo() async throws {
        guard let data = try SystemCallError.status(daemon.dataDir), let shm = try SystemCallError.status("/dev/shm"), data.st_dev != shm.st_dev else {
            throw XCTSkip("/dev/shm is not another file system here")
        }
        let mine = "/dev/shm/stash-adopt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: mine + "/album/disc2", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: mine) }
        try Data(repeating: 1, count: 3000).write(to: URL(fileURLWithPath: mine + "/album/1.mp3"))
        try Data(repeating: 2, count: 4000).write(to: URL(fileURLWithPath: mine + "/album/disc2/1.mp3"))
        try Data(repeating: 3, count: 500).write(to: URL(fileURLWithPath: mine + "/single.bin"))

        let album = try await client.adopt(AdoptRequest(path: mine + "/album", id: "album"))
        XCTAssertEqual(album.downloadedBytes, 7000)
        let single = try await client.adopt(AdoptRequest(path: mine + "/single.bin", id: "single", url: "https://example.com/s.bin"))
        XCTAssertEqual(single.assetPath, daemon.dataDir + "/assets/single/s.bin")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mine), [], "the originals are gone")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: daemon.dataDir + "/assets/album/disc2/1.mp3")), Data(repeating: 2, count: 4000))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/assets/single"), ["s.bin"])
        let clean = try await client.verify()
        XCTAssertTrue(clean.findings.isEmpty, "no temporary copy is left: \(clean.findings)")
    }

    func testTheCommandLineAdoptsAFile() throws {
        let folder = try userFolder()
        try Data(repeating: 3, count: 500).write(to: URL(fileURLWithPath: folder + "/song.mp3"))
        let adopt = try daemon.runCLI(["adopt", folder + "/song.mp3", "--id", "song"])
        XCTAssertEqual(adopt.status, 0, adopt.stderr)
        XCTAssertTrue(adopt.stdout.contains("adopted song (COMPLETED)"), adopt.stdout)
        XCTAssertTrue(exists(daemon.dataDir + "/assets/song/song.mp3"))
    }
}
