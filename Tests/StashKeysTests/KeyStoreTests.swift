import Foundation
import Synchronization
import XCTest

@testable import StashKeys

final class KeyStoreTests: XCTestCase {
    private var root = ""
    private var keysDir: String { root + "/keys" }
    private let key: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
    private var keyHex: String { key.map { String(format: "%02x", $0) }.joined() }

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "stash-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func mode(_ path: String, line: UInt = #line) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            XCTFail("\(path) does not exist", line: line)
            return nil
        }
        return info.st_mode & 0o777
    }

    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    private func put(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    private func assertKeysError(
        _ code: KeysError.Code, mentioning parts: [String], line: UInt = #line, _ body: () throws -> Void
    ) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard let error = error as? KeysError else { return XCTFail("not a KeysError: \(error)", line: line) }
            XCTAssertEqual(error.code, code, "\(error)", line: line)
            for part in parts {
                XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line)
            }
            // Key bytes must never leak into an error, in any spelling.
            for text in [error.message, error.description, "\(error)", String(reflecting: error)] {
                XCTAssertFalse(text.lowercased().contains(keyHex), "key bytes in: \(text.prefix(200))", line: line)
                XCTAssertFalse(text.contains("\(key)".dropFirst().dropLast()), "key bytes in: \(text.prefix(200))", line: line)
            }
        }
    }

    func testRoundTripOverwriteAndAbsentEntries() throws {
        let store = try KeyStore(directory: keysDir)
        XCTAssertNil(try store.read(asset: "a1", keyID: "key-1"))
        XCTAssertFalse(store.exists(asset: "a1", keyID: "key-1"))

        try store.write(asset: "a1", keyID: "key-1", key: key)
        XCTAssertEqual(try store.read(asset: "a1", keyID: "key-1"), key)
        XCTAssertTrue(store.exists(asset: "a1", keyID: "key-1"))
        XCTAssertNil(try store.read(asset: "a1", keyID: "key-2"), "another key id of the same asset")
        XCTAssertNil(try store.read(asset: "a2", keyID: "key-1"), "the same key id of another asset")

        let replacement = [UInt8](repeating: 0x42, count: 16)
        try store.write(asset: "a1", keyID: "key-1", key: replacement)
        XCTAssertEqual(try store.read(asset: "a1", keyID: "key-1"), replacement)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: keysDir + "/a1").count, 1, "no temp files left")
    }

    func testLayoutIsAssetFolderAndSHA256OfKeyID() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "key-1", key: key)
        // printf 'key-1' | sha256sum
        let expected = keysDir + "/a1/be2974546978e3739e6d6da85c4be9f334ce32df2b9fd4b6ff1b55c0d57e9d44.key"
        XCTAssertTrue(FileManager.default.fileExists(atPath: expected))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: keysDir).sorted(), ["a1", "master.key"])
    }

    func testANewInstanceReadsWhatAnEarlierOneWrote() throws {
        let uri = "https://cdn.example/keys/42?token=abc"
        do {
            let store = try KeyStore(directory: keysDir)
            try store.write(asset: "movie-1", keyID: uri, key: key)
        }
        let master = try bytes(keysDir + "/master.key")
        XCTAssertEqual(master.count, 32)

        let reopened = try KeyStore(directory: keysDir)
        XCTAssertEqual(try reopened.read(asset: "movie-1", keyID: uri), key)
        XCTAssertEqual(try bytes(keysDir + "/master.key"), master, "the master key is created once")
    }

    /// A master key and an entry written by stash 0.6 (sealed with swift-crypto before the
    /// move to the system's libcrypto): data dirs from then keep their keys.
    func testAnEntrySealedByAnEarlierStashStillOpens() throws {
        func hex(_ text: String) -> [UInt8] {
            stride(from: 0, to: text.count, by: 2).map { offset in
                let start = text.index(text.startIndex, offsetBy: offset)
                return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
            }
        }
        try FileManager.default.createDirectory(atPath: keysDir + "/ep1", withIntermediateDirectories: true)
        try put(hex("c8b5eb4d1094ef3b367d5ea0656f79749c7ec72dd5c7faea5d5bdc9532ecf86b"), keysDir + "/master.key")
        try put(
            hex("010fdca28283bfb1948af5454f3f3cfa3e53a04eb0027a989f0cc9df52919070fff72792d6434eeda765d6baa6"),
            keysDir + "/ep1/5735b9d863bad11676d108fa672ed97e5f400be8da2cf8ff9ab0ec1453c228d6.key")
        let store = try KeyStore(directory: keysDir)
        XCTAssertEqual(try store.read(asset: "ep1", keyID: "skd://key-1"), Array(0..<16))
        assertKeysError(.unsealFailed, mentioning: ["ep1", "skd://key-2"]) {
            try FileManager.default.copyItem(
                atPath: keysDir + "/ep1/5735b9d863bad11676d108fa672ed97e5f400be8da2cf8ff9ab0ec1453c228d6.key",
                toPath: store.entryPath(asset: "ep1", keyID: "skd://key-2"))
            _ = try store.read(asset: "ep1", keyID: "skd://key-2")
        }
    }

    func testModesAreExactWhateverTheUmask() throws {
        // 0 would let group/other bits through; 0o277 would strip the owner's own write bit.
        for mask: mode_t in [0, 0o277] {
            let old = umask(mask)
            defer { umask(old) }
            let dir = root + "/keys-\(mask)"
            let store = try KeyStore(directory: dir)
            try store.write(asset: "a1", keyID: "k", key: key)
            XCTAssertEqual(mode(dir), 0o700, "umask \(mask)")
            XCTAssertEqual(mode(dir + "/master.key"), 0o600, "umask \(mask)")
            XCTAssertEqual(mode(dir + "/a1"), 0o700, "umask \(mask)")
            XCTAssertEqual(mode(store.entryPath(asset: "a1", keyID: "k")), 0o600, "umask \(mask)")
        }
    }

    func testAnExistingLooseKeysFolderIsTightened() throws {
        try FileManager.default.createDirectory(atPath: keysDir, withIntermediateDirectories: false)
        XCTAssertEqual(chmod(keysDir, 0o755), 0)
        _ = try KeyStore(directory: keysDir)
        XCTAssertEqual(mode(keysDir), 0o700)
    }

    func testTheSealedFileDoesNotHoldTheRawKey() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "k", key: key)
        let sealed = try bytes(store.entryPath(asset: "a1", keyID: "k"))
        XCTAssertEqual(sealed.first, 1, "format version")
        XCTAssertEqual(sealed.count, 1 + 12 + key.count + 16, "version, nonce, ciphertext, tag")
        // No 4-byte run of the key appears anywhere in the file.
        for start in 0...(key.count - 4) {
            let run = Array(key[start..<(start + 4)])
            let found = (0...(sealed.count - 4)).contains { Array(sealed[$0..<($0 + 4)]) == run }
            XCTAssertFalse(found, "key bytes \(start)..<\(start + 4) found in the sealed file")
        }
        // A fresh nonce per write: sealing the same key again gives a different file.
        try store.write(asset: "a1", keyID: "k", key: key)
        XCTAssertNotEqual(try bytes(store.entryPath(asset: "a1", keyID: "k")), sealed)
    }

    func testATamperedEntryIsRefusedNamingIt() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "key-1", key: key)
        let path = store.entryPath(asset: "a1", keyID: "key-1")
        let original = try bytes(path)
        // Nonce, ciphertext and tag: a flipped bit anywhere fails authentication.
        for index in [1, 13, original.count - 1] {
            var tampered = original
            tampered[index] ^= 0x01
            try put(tampered, path)
            assertKeysError(.unsealFailed, mentioning: ["'a1'", "'key-1'", path]) {
                _ = try store.read(asset: "a1", keyID: "key-1")
            }
        }
        try put(Array(original.prefix(20)), path)
        assertKeysError(.unsealFailed, mentioning: ["'a1'"]) { _ = try store.read(asset: "a1", keyID: "key-1") }
        try put([], path)
        assertKeysError(.unsealFailed, mentioning: ["'a1'"]) { _ = try store.read(asset: "a1", keyID: "key-1") }
        var future = original
        future[0] = 9
        try put(future, path)
        assertKeysError(.unsupportedFormat, mentioning: ["version 9"]) { _ = try store.read(asset: "a1", keyID: "key-1") }
    }

    func testAnEntrySealedUnderAnotherMasterKeyIsRefused() throws {
        try KeyStore(directory: keysDir).write(asset: "a1", keyID: "key-1", key: key)
        try put([UInt8](repeating: 7, count: 32), keysDir + "/master.key")
        let store = try KeyStore(directory: keysDir)
        assertKeysError(.unsealFailed, mentioning: ["'a1'", "'key-1'", "master key"]) {
            _ = try store.read(asset: "a1", keyID: "key-1")
        }
    }

    func testAnEntryCopiedToAnotherKeyIDOrAssetIsRefused() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "key-1", key: key)
        try store.write(asset: "a2", keyID: "key-9", key: [UInt8](repeating: 1, count: 16))
        let sealed = try bytes(store.entryPath(asset: "a1", keyID: "key-1"))

        try put(sealed, store.entryPath(asset: "a1", keyID: "key-2"))
        assertKeysError(.unsealFailed, mentioning: ["'a1'", "'key-2'"]) { _ = try store.read(asset: "a1", keyID: "key-2") }

        try put(sealed, store.entryPath(asset: "a2", keyID: "key-1"))
        assertKeysError(.unsealFailed, mentioning: ["'a2'", "'key-1'"]) { _ = try store.read(asset: "a2", keyID: "key-1") }

        XCTAssertEqual(try store.read(asset: "a1", keyID: "key-1"), key, "the original still opens")
    }

    func testDeleteAndDeleteAllRemoveFilesAndFolders() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "k1", key: key)
        try store.write(asset: "a1", keyID: "k2", key: key)
        try store.write(asset: "b2", keyID: "k1", key: key)
        try store.write(asset: "c3", keyID: "k1", key: key)
        XCTAssertEqual(try store.assets(), ["a1", "b2", "c3"])

        try store.delete(asset: "a1", keyID: "k1")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.entryPath(asset: "a1", keyID: "k1")))
        XCTAssertNil(try store.read(asset: "a1", keyID: "k1"))
        XCTAssertEqual(try store.read(asset: "a1", keyID: "k2"), key)
        try store.delete(asset: "a1", keyID: "k1")  // already gone: not an error
        try store.delete(asset: "a1", keyID: "k2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: keysDir + "/a1"), "last entry takes the folder with it")

        // A leftover of an interrupted write goes too.
        try put([1, 2, 3], keysDir + "/b2/.x.key.tmp-1")
        try store.deleteAll(asset: "b2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: keysDir + "/b2"))
        XCTAssertFalse(store.exists(asset: "b2", keyID: "k1"))
        try store.deleteAll(asset: "b2")  // nothing left: not an error
        try store.deleteAll(asset: "never-had-keys")

        XCTAssertEqual(try store.assets(), ["c3"])
        XCTAssertEqual(try store.read(asset: "c3", keyID: "k1"), key)
    }

    func testAssetsSkipsFoldersWithoutEntriesAndStrayNames() throws {
        let store = try KeyStore(directory: keysDir)
        try store.write(asset: "a1", keyID: "k1", key: key)
        try FileManager.default.createDirectory(atPath: keysDir + "/empty", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: keysDir + "/only-temp", withIntermediateDirectories: false)
        try put([1], keysDir + "/only-temp/.x.key.tmp-1")
        try put([1], keysDir + "/stray-file")
        XCTAssertEqual(try store.assets(), ["a1"])
    }

    func testAWrongSizeMasterKeyIsAnErrorNamingThePathAndIsKept() throws {
        try FileManager.default.createDirectory(atPath: keysDir, withIntermediateDirectories: false)
        let path = keysDir + "/master.key"
        for size in [0, 31, 33, 4096] {
            let contents = [UInt8](repeating: 5, count: size)
            try put(contents, path)
            assertKeysError(.invalidMasterKey, mentioning: [path, "\(size) bytes", "expected 32"]) {
                _ = try KeyStore(directory: keysDir)
            }
            XCTAssertEqual(try bytes(path), contents, "never silently replaced")
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        assertKeysError(.invalidMasterKey, mentioning: [path, "not a regular file"]) { _ = try KeyStore(directory: keysDir) }
    }

    func testBadAssetIDsAreRefusedEverywhere() throws {
        let store = try KeyStore(directory: keysDir)
        let bad = ["", ".", "..", ".hidden", "a/b", "../x", "/abs", "a b", "a\u{0}b", "caf\u{e9}", "a\\b", String(repeating: "a", count: 256)]
        for asset in bad {
            assertKeysError(.invalidAssetID, mentioning: ["asset id"]) { try store.write(asset: asset, keyID: "k", key: key) }
            assertKeysError(.invalidAssetID, mentioning: ["asset id"]) { _ = try store.read(asset: asset, keyID: "k") }
            assertKeysError(.invalidAssetID, mentioning: ["asset id"]) { try store.delete(asset: asset, keyID: "k") }
            assertKeysError(.invalidAssetID, mentioning: ["asset id"]) { try store.deleteAll(asset: asset) }
            XCTAssertFalse(store.exists(asset: asset, keyID: "k"))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: keysDir), ["master.key"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), ["keys"], "nothing written outside")
        for good in ["a", "A-z_0.9", "x.", String(repeating: "a", count: 255)] {
            try store.write(asset: good, keyID: "k", key: key)
            XCTAssertEqual(try store.read(asset: good, keyID: "k"), key)
        }
    }

    func testAnEmptyOrHugeKeyIsRefusedWithoutEchoingIt() throws {
        let store = try KeyStore(directory: keysDir)
        assertKeysError(.invalidKey, mentioning: ["got 0"]) { try store.write(asset: "a1", keyID: "k", key: []) }
        let huge = Array([[UInt8]](repeating: key, count: 4096).joined())
        assertKeysError(.invalidKey, mentioning: ["got 65536"]) { try store.write(asset: "a1", keyID: "k", key: huge) }
        XCTAssertEqual(try store.assets(), [], "nothing written")
    }

    func testConcurrentUseOfOneInstance() throws {
        let store = try KeyStore(directory: keysDir)
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            do {
                let asset = "asset-\(index % 4)"
                let own = [UInt8](repeating: UInt8(index), count: 16)
                try store.write(asset: asset, keyID: "k\(index)", key: own)
                if try store.read(asset: asset, keyID: "k\(index)") != own { throw KeysError(.invalidKey, "mismatch \(index)") }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(try store.assets(), ["asset-0", "asset-1", "asset-2", "asset-3"])
    }
}
