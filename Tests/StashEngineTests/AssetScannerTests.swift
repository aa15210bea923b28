import Foundation
import StashCore
import XCTest

@testable import StashEngine

final class AssetScannerTests: XCTestCase {
    private var root = ""
    private var assets = ""
    /// Outside `assets/`: what symlinks point at, which no scan or remove may touch.
    private var outside = ""

    private static let helloSHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    private static let worldSHA = "486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7"

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "stash-scan-\(UUID().uuidString)"
        assets = root + "/assets"
        outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: - Helpers

    private func write(_ path: String, _ content: String) throws {
        try write(path, Data(content.utf8))
    }

    private func write(_ path: String, _ data: Data) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data), path)
    }

    private func link(_ path: String, to target: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    private func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private func expected(_ id: String, _ files: [DownloadFile], complete: Bool) -> AssetScanner.Expected {
        AssetScanner.Expected(id: id, folder: assets + "/" + id, files: files, shouldBeComplete: complete)
    }

    private func file(_ path: String, size: Int64? = nil, sha256: String = "") -> DownloadFile {
        DownloadFile(url: "http://h/\(path)", path: path, size: size, sha256: sha256)
    }

    private func scan(_ downloads: [AssetScanner.Expected], deep: Bool = false) -> AssetScanner.Result {
        AssetScanner.scan(assetsDir: assets, downloads: downloads, deep: deep)
    }

    // MARK: - Files of a download

    func testMissingFileOfACompleteDownloadOnly() throws {
        try write(assets + "/done/a.bin", "hello")
        try FileManager.default.createDirectory(atPath: assets + "/done/b.bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: assets + "/busy", withIntermediateDirectories: true)
        let downloads = [
            expected("done", [file("a.bin", size: 5), file("b.bin"), file("pages/c.bin")], complete: true),
            expected("busy", [file("x.bin", size: 10)], complete: false),
            expected("never", [file("y.bin")], complete: false),
        ]
        let result = scan(downloads)
        XCTAssertEqual(result.filesChecked, 5)
        XCTAssertEqual(result.findings, [
            VerifyFinding(kind: .missingFile, id: "done", path: assets + "/done/b.bin", detail: "file missing on disk: a folder is at its path"),
            VerifyFinding(kind: .missingFile, id: "done", path: assets + "/done/pages/c.bin", detail: "file missing on disk"),
        ])
        XCTAssertEqual(result.errors, [])
    }

    func testWrongSize() throws {
        try write(assets + "/d/a.bin", "hello")
        try write(assets + "/d/b.bin", "hello")
        try write(assets + "/d/c.bin", "hello")
        let downloads = [expected("d", [file("a.bin", size: 7), file("b.bin", size: 5), file("c.bin")], complete: true)]
        XCTAssertEqual(scan(downloads).findings, [
            VerifyFinding(kind: .wrongSize, id: "d", path: assets + "/d/a.bin", detail: "5 bytes on disk, expected 7"),
        ])
    }

    func testWrongDigestOnlyWithDeep() throws {
        try write(assets + "/d/good.txt", "hello")
        try write(assets + "/d/bad.txt", "hello")
        try write(assets + "/d/none.txt", "hello")
        let downloads = [
            expected("d", [
                file("good.txt", size: 5, sha256: Self.helloSHA.uppercased()),
                file("bad.txt", size: 5, sha256: Self.worldSHA),
                file("none.txt", size: 5),
            ], complete: true),
        ]
        XCTAssertEqual(scan(downloads, deep: false).findings, [])
        let deep = scan(downloads, deep: true)
        XCTAssertEqual(deep.findings, [
            VerifyFinding(
                kind: .wrongDigest, id: "d", path: assets + "/d/bad.txt",
                detail: "sha256 \(Self.helloSHA) on disk, expected \(Self.worldSHA)"),
        ])
        XCTAssertEqual(deep.filesChecked, 3)
    }

    /// Bigger than one read, not a multiple of it: the digest covers every read.
    func testDigestOfAFileOfSeveralReads() throws {
        let count = AssetScanner.hashReadSize * 5 / 2 + 7
        let data = Data((0..<count).map { UInt8($0 % 251) })
        try write(assets + "/d/big.bin", data)
        let digest = "ffe7fe4b5e2866a0433ec4ae27932c3f50ef8b8ff5b4aa4bc3808aaf8bd2dd70"
        XCTAssertEqual(scan([expected("d", [file("big.bin", size: Int64(count), sha256: digest)], complete: true)], deep: true).findings, [])
        let other = String(repeating: "0", count: 64)
        XCTAssertEqual(scan([expected("d", [file("big.bin", sha256: other)], complete: true)], deep: true).findings, [
            VerifyFinding(kind: .wrongDigest, id: "d", path: assets + "/d/big.bin", detail: "sha256 \(digest) on disk, expected \(other)"),
        ])
    }

    /// A symlink at a file's path is not the file, and is not hashed through.
    func testSymlinkAtAFilePathIsAMissingFile() throws {
        try write(outside + "/target.txt", "hello")
        try link(assets + "/d/a.txt", to: outside + "/target.txt")
        let downloads = [expected("d", [file("a.txt", size: 5, sha256: Self.helloSHA)], complete: true)]
        XCTAssertEqual(scan(downloads, deep: true).findings, [
            VerifyFinding(kind: .missingFile, id: "d", path: assets + "/d/a.txt", detail: "file missing on disk: a symlink is at its path"),
        ])
    }

    // MARK: - Orphans at the top of assets/

    func testOrphanFolderWithItsSizeAndStrayTopLevelEntries() throws {
        try write(assets + "/owned/a.bin", "hello")
        try write(assets + "/gone/one.bin", "abc")
        try write(assets + "/gone/deep/er/two.bin", "12345")
        try FileManager.default.createDirectory(atPath: assets + "/gone/empty", withIntermediateDirectories: true)
        try write(outside + "/huge.bin", String(repeating: "x", count: 1000))
        // Not followed: its target's bytes are not the folder's.
        try link(assets + "/gone/link", to: outside + "/huge.bin")
        try link(assets + "/gone/dirlink", to: outside)
        try write(assets + "/stray.txt", "four")
        try link(assets + "/stray-link", to: outside + "/huge.bin")
        let downloads = [expected("owned", [file("a.bin", size: 5)], complete: true)]
        let expectedFindings = [
            VerifyFinding(kind: .orphanFolder, id: "", path: assets + "/gone", detail: "8 bytes in a folder no download owns"),
            VerifyFinding(kind: .orphanFile, id: "", path: assets + "/stray-link", detail: "a symlink in assets/ that is no download's folder"),
            VerifyFinding(kind: .orphanFile, id: "", path: assets + "/stray.txt", detail: "4 bytes in assets/ that is no download's folder"),
        ]
        XCTAssertEqual(scan(downloads).findings, expectedFindings)
    }

    func testMissingAssetsFolderIsNoError() {
        try? FileManager.default.removeItem(atPath: assets)
        let result = scan([expected("d", [file("a.bin")], complete: false)])
        XCTAssertEqual(result.findings, [])
        XCTAssertEqual(result.errors, [])
        XCTAssertEqual(result.filesChecked, 1)
    }

    // MARK: - Inside a download's folder

    func testOrphanFilesInsideAnOwnedFolder() throws {
        try write(assets + "/d/pages/001.jpg", "jpg")
        try write(assets + "/d/notes.txt", "note")
        try write(assets + "/d/pages/extra/x.bin", "xx")
        try FileManager.default.createDirectory(atPath: assets + "/d/empty/too", withIntermediateDirectories: true)
        let downloads = [expected("d", [file("pages/001.jpg", size: 3)], complete: true)]
        XCTAssertEqual(scan(downloads).findings, [
            VerifyFinding(kind: .orphanFile, id: "d", path: assets + "/d/notes.txt", detail: "4 bytes that is none of the download's files"),
            VerifyFinding(kind: .orphanFile, id: "d", path: assets + "/d/pages/extra/x.bin", detail: "2 bytes that is none of the download's files"),
        ])
    }

    func testPartFileIsResumeDataUnlessItsFileIsComplete() throws {
        // Still fetching: a.bin is not there yet, its part is resume data.
        try write(assets + "/busy/a.bin.part", "he")
        // b.bin is complete (right size) and its part is left over.
        try write(assets + "/busy/b.bin", "hello")
        try write(assets + "/busy/b.bin.part", "hel")
        // c.bin is there with another size: not complete, its part still counts as resume data.
        try write(assets + "/busy/sub/c.bin", "hel")
        try write(assets + "/busy/sub/c.bin.part", "h")
        // d.bin has no known size: being at its final path makes it complete.
        try write(assets + "/busy/d.bin", "hello")
        try write(assets + "/busy/d.bin.part", "h")
        // Part of no file of the download.
        try write(assets + "/busy/zzz.bin.part", "z")
        // A completed download's part files are all stale, even of a missing file.
        try write(assets + "/done/x.bin", "hello")
        try write(assets + "/done/x.bin.part", "hell")
        try write(assets + "/done/y.bin.part", "h")
        let downloads = [
            expected("busy", [file("a.bin", size: 5), file("b.bin", size: 5), file("sub/c.bin", size: 5), file("d.bin")], complete: false),
            expected("done", [file("x.bin", size: 5), file("y.bin", size: 5)], complete: true),
        ]
        XCTAssertEqual(scan(downloads).findings, [
            VerifyFinding(kind: .stalePart, id: "busy", path: assets + "/busy/b.bin.part", detail: "part file of a file already complete, 3 bytes"),
            VerifyFinding(kind: .stalePart, id: "busy", path: assets + "/busy/d.bin.part", detail: "part file of a file already complete, 1 bytes"),
            VerifyFinding(kind: .orphanFile, id: "busy", path: assets + "/busy/zzz.bin.part", detail: "1 bytes that is none of the download's files"),
            VerifyFinding(kind: .stalePart, id: "done", path: assets + "/done/x.bin.part", detail: "part file of a completed download, 4 bytes"),
            VerifyFinding(kind: .missingFile, id: "done", path: assets + "/done/y.bin", detail: "file missing on disk"),
            VerifyFinding(kind: .stalePart, id: "done", path: assets + "/done/y.bin.part", detail: "part file of a completed download, 1 bytes"),
        ])
    }

    func testSymlinkInsideAnOwnedFolderIsAnOrphanAndRemoveUnlinksOnlyTheLink() throws {
        try write(assets + "/d/a.bin", "hello")
        try write(outside + "/secret.txt", "keep me")
        try write(outside + "/dir/inner.txt", "keep me too")
        try link(assets + "/d/evil", to: outside + "/secret.txt")
        try link(assets + "/d/evil-dir", to: outside + "/dir")
        let downloads = [expected("d", [file("a.bin", size: 5)], complete: true)]
        let findings = scan(downloads).findings
        XCTAssertEqual(findings, [
            VerifyFinding(kind: .orphanFile, id: "d", path: assets + "/d/evil", detail: "a symlink that is none of the download's files"),
            VerifyFinding(kind: .orphanFile, id: "d", path: assets + "/d/evil-dir", detail: "a symlink that is none of the download's files"),
        ])
        for finding in findings {
            let removed = AssetScanner.remove(finding)
            XCTAssertEqual(removed.files, 0)
            XCTAssertEqual(removed.bytes, 0)
        }
        XCTAssertFalse(exists(assets + "/d/evil"))
        XCTAssertFalse(exists(assets + "/d/evil-dir"))
        XCTAssertEqual(try String(contentsOfFile: outside + "/secret.txt", encoding: .utf8), "keep me")
        XCTAssertEqual(try String(contentsOfFile: outside + "/dir/inner.txt", encoding: .utf8), "keep me too")
        XCTAssertEqual(try String(contentsOfFile: assets + "/d/a.bin", encoding: .utf8), "hello")
        XCTAssertEqual(scan(downloads).findings, [])
    }

    func testDownloadFolderThatIsASymlinkIsReported() throws {
        try write(outside + "/real/a.bin", "hello")
        try link(assets + "/d", to: outside + "/real")
        let downloads = [expected("d", [file("a.bin", size: 5)], complete: false)]
        let findings = scan(downloads).findings
        XCTAssertEqual(findings, [
            VerifyFinding(kind: .orphanFile, id: "d", path: assets + "/d", detail: "a symlink where the download's folder should be"),
        ])
        XCTAssertEqual(AssetScanner.remove(findings[0]).files, 0)
        XCTAssertFalse(exists(assets + "/d"))
        XCTAssertEqual(try String(contentsOfFile: outside + "/real/a.bin", encoding: .utf8), "hello")
    }

    // MARK: - Remove

    func testRemoveFolderCountsItsFilesAndBytes() throws {
        try write(assets + "/gone/one.bin", "abc")
        try write(assets + "/gone/deep/er/two.bin", "12345")
        try write(assets + "/gone/deep/three.bin", "")
        try FileManager.default.createDirectory(atPath: assets + "/gone/empty/nested", withIntermediateDirectories: true)
        try write(outside + "/target.bin", "outside")
        try write(outside + "/dir/inner.bin", "inner")
        try link(assets + "/gone/deep/link", to: outside + "/target.bin")
        try link(assets + "/gone/dirlink", to: outside + "/dir")
        try write(assets + "/kept/a.bin", "a")
        let findings = scan([expected("kept", [file("a.bin")], complete: true)]).findings
        XCTAssertEqual(findings, [
            VerifyFinding(kind: .orphanFolder, id: "", path: assets + "/gone", detail: "8 bytes in a folder no download owns"),
        ])
        let removed = AssetScanner.remove(findings[0])
        XCTAssertEqual(removed.files, 3)
        XCTAssertEqual(removed.bytes, 8)
        XCTAssertFalse(exists(assets + "/gone"))
        XCTAssertTrue(exists(assets + "/kept/a.bin"))
        XCTAssertEqual(try String(contentsOfFile: outside + "/target.bin", encoding: .utf8), "outside")
        XCTAssertEqual(try String(contentsOfFile: outside + "/dir/inner.bin", encoding: .utf8), "inner")
        // Gone already: nothing to count.
        let again = AssetScanner.remove(findings[0])
        XCTAssertEqual(again.files, 0)
        XCTAssertEqual(again.bytes, 0)
    }

    func testRemoveOneFile() throws {
        try write(assets + "/d/x.bin.part", "1234")
        let finding = VerifyFinding(kind: .stalePart, id: "d", path: assets + "/d/x.bin.part", detail: "")
        let removed = AssetScanner.remove(finding)
        XCTAssertEqual(removed.files, 1)
        XCTAssertEqual(removed.bytes, 4)
        XCTAssertFalse(exists(assets + "/d/x.bin.part"))
        XCTAssertTrue(exists(assets + "/d"))
        let missing = AssetScanner.remove(VerifyFinding(kind: .orphanFolder, id: "", path: assets + "/nothing", detail: ""))
        XCTAssertEqual(missing.files, 0)
        XCTAssertEqual(missing.bytes, 0)
    }
}
