import Foundation
import StashCore
import Synchronization
import XCTest

@testable import StashFetch

/// Folder syncs: every caller hears back once, with the folder's error if it cannot be synced,
/// and a file's folders run from its own up to the one holding the asset's folder.
final class FolderSyncTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("stash-folders-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/a/b", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testManyCallersOnOneFolderAndOthersAllHearBack() {
        let syncs = FolderSync(pool: SyncPool(label: "test.folders", threads: 4))
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        for index in 0..<200 {
            done.enter()
            let paths = index.isMultiple(of: 2) ? [folder + "/a/b", folder + "/a"] : [folder!]
            syncs.sync(paths, here: false) { error in
                if let error { failures.withLock { $0.append("\(error)") } }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(failures.withLock { $0 }, [])
    }

    /// A change named by the count read after it is covered by any later fsync of its folder:
    /// asked again once one has returned, the answer comes at once and no fsync starts. A
    /// change made now needs a new one.
    func testAChangeAnFsyncAlreadyCoveredStartsNone() {
        let syncs = FolderSync(pool: SyncPool(label: "test.folders", threads: 2))
        let made = syncs.now()
        wait(syncs, [folder], after: nil)
        let once = syncs.now()
        XCTAssertEqual(once, made + 1, "one fsync")
        wait(syncs, [folder], after: [made])
        XCTAssertEqual(syncs.now(), once, "the fsync that returned covered it")
        wait(syncs, [folder + "/a"], after: [made])
        XCTAssertEqual(syncs.now(), once + 1, "another folder's fsync does not cover this one")
        wait(syncs, [folder], after: nil)
        XCTAssertEqual(syncs.now(), once + 2, "a change made after that fsync started needs a new one")
    }

    private func wait(_ syncs: FolderSync, _ paths: [String], after: [UInt64]?) {
        let heard = expectation(description: "done")
        let failure = Mutex<SystemCallError?>(nil)
        syncs.sync(paths, after: after) { error in
            failure.withLock { $0 = error }
            heard.fulfill()
        }
        wait(for: [heard], timeout: 10)
        XCTAssertNil(failure.withLock { $0 })
    }

    func testAFolderThatCannotBeSyncedFailsNamingIt() {
        let syncs = FolderSync(pool: SyncPool(label: "test.folders", threads: 2))
        let missing = folder + "/missing"
        let heard = expectation(description: "done")
        let failure = Mutex<SystemCallError?>(nil)
        syncs.sync([folder, missing]) { error in
            failure.withLock { $0 = error }
            heard.fulfill()
        }
        wait(for: [heard], timeout: 10)
        let error = failure.withLock { $0 }
        XCTAssertEqual(error?.path, missing)
        XCTAssertEqual(error?.errnoCode, ENOENT)
    }

    func testAFileDependsOnEveryFolderUpToTheOneHoldingTheAssetsFolder() {
        XCTAssertEqual(FileSyncer.enclosingFolders("pages/2", in: "/data/assets/x"),
                       ["/data/assets/x/pages/2", "/data/assets/x/pages", "/data/assets/x", "/data/assets"])
        XCTAssertEqual(FileSyncer.enclosingFolders("", in: "/data/assets/x"), ["/data/assets/x", "/data/assets"])
    }

    /// A folder's parent, as `NSString.deletingLastPathComponent` gives it for the absolute
    /// paths stash makes (which on Linux traps on a name without a slash).
    func testTheParentOfAFolder() {
        let parents = [
            "/data/assets/x": "/data/assets", "/data/assets/x/": "/data/assets", "/data/assets//x": "/data/assets", "/x": "/", "/": "/",
            "//": "/", "/a/b///": "/a", "/d/é/f": "/d/é", "x": "", "": "",
        ]
        for (path, parent) in parents {
            XCTAssertEqual(FileSyncer.parent(of: path), parent, "'\(path)'")
        }
    }
}
