import Foundation
import StashKeys
import StashTestSupport
import XCTest

final class SegmentCipherTests: XCTestCase {
    private let key: [UInt8] = Array(0x10..<0x20)
    private let iv: [UInt8] = Array(0xA0..<0xB0)
    private var workDir = ""

    override func setUpWithError() throws {
        workDir = NSTemporaryDirectory() + "stash-cipher-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: workDir)
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Encrypts with the openssl command line, an implementation independent of ours.
    private func opensslEncrypt(_ plain: [UInt8], key: [UInt8], iv: [UInt8], noPadding: Bool = false) throws -> [UInt8] {
        let input = workDir + "/plain-\(UUID().uuidString)"
        let output = input + ".enc"
        try Data(plain).write(to: URL(fileURLWithPath: input))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["enc", "-aes-128-cbc", "-K", hex(key), "-iv", hex(iv), "-in", input, "-out", output]
            + (noPadding ? ["-nopad"] : [])
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl failed")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private func assertKeysError(_ code: KeysError.Code, mentioning part: String, line: UInt = #line, _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard let error = error as? KeysError else { return XCTFail("not a KeysError: \(error)", line: line) }
            XCTAssertEqual(error.code, code, "\(error)", line: line)
            XCTAssertTrue(error.message.contains(part), "'\(part)' not in: \(error.message)", line: line)
            XCTAssertFalse(error.description.contains(hex(key)), line: line)
        }
    }

    func testDecryptsWhatOpenSSLEncrypts() throws {
        var generator = SeededRandom.seeded()
        for size in [0, 1, 15, 16, 17, 31, 32, 1000, 188 * 7] {
            let plain = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let cipher = try opensslEncrypt(plain, key: key, iv: iv)
            XCTAssertEqual(cipher.count, (size / 16 + 1) * 16, "PKCS7 always pads")
            XCTAssertEqual(try SegmentCipher.decrypt(cipher, key: key, iv: iv), plain, "size \(size)")
        }
    }

    func testATwoMegabyteSegmentDecrypts() throws {
        let plain = (0..<(2 * 1024 * 1024 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let segmentIV = [UInt8](repeating: 0, count: 14) + [0x04, 0xD2]
        let cipher = try opensslEncrypt(plain, key: key, iv: segmentIV)
        let result = try SegmentCipher.decrypt(cipher, key: key, iv: segmentIV)
        XCTAssertTrue(result == plain, "2 MB segment differs from the plaintext")
    }

    func testWrongKeyAndIVLengthsAreClearErrors() throws {
        let cipher = try opensslEncrypt([1, 2, 3], key: key, iv: iv)
        for length in [0, 15, 17, 32] {
            let badKey = [UInt8](repeating: 1, count: length)
            assertKeysError(.invalidKeyLength, mentioning: "got \(length)") { _ = try SegmentCipher.decrypt(cipher, key: badKey, iv: iv) }
        }
        for length in [0, 8, 12, 17] {
            let badIV = [UInt8](repeating: 1, count: length)
            assertKeysError(.invalidIVLength, mentioning: "got \(length)") { _ = try SegmentCipher.decrypt(cipher, key: key, iv: badIV) }
        }
    }

    func testTruncatedSegmentsAreClearErrors() throws {
        let cipher = try opensslEncrypt([UInt8](repeating: 9, count: 40), key: key, iv: iv)
        assertKeysError(.invalidCiphertextLength, mentioning: "got 47") { _ = try SegmentCipher.decrypt(Array(cipher.dropLast()), key: key, iv: iv) }
        assertKeysError(.invalidCiphertextLength, mentioning: "got 0") { _ = try SegmentCipher.decrypt([], key: key, iv: iv) }
    }

    func testBadPaddingIsAClearError() throws {
        // Raw blocks (no padding added by openssl) whose last bytes are not valid PKCS7.
        let cases: [[UInt8]] = [
            [UInt8](repeating: 3, count: 15) + [0],  // a pad of 0
            [UInt8](repeating: 0x11, count: 16),  // a pad longer than a block
            [UInt8](repeating: 0x20, count: 32),  // longer than a block even though 32 bytes say 0x20
            [UInt8](repeating: 1, count: 13) + [2, 3, 3],  // the pad bytes disagree
        ]
        for plain in cases {
            let cipher = try opensslEncrypt(plain, key: key, iv: iv, noPadding: true)
            assertKeysError(.badPadding, mentioning: "padding") { _ = try SegmentCipher.decrypt(cipher, key: key, iv: iv) }
        }
    }
}
