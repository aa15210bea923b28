import XCTest

@testable import StashCrypto

final class AESGCMTests: XCTestCase {
    private func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    // The GCM specification's test cases 13 and 14 (AES-256, zero key and IV), and one with
    // authenticated data checked against Python's `cryptography` (OpenSSL).
    func testKnownAnswers() throws {
        let zeroKey = [UInt8](repeating: 0, count: 32)
        let zeroNonce = [UInt8](repeating: 0, count: 12)
        XCTAssertEqual(try AESGCM.seal([], key: zeroKey, nonce: zeroNonce, authenticating: []), zeroNonce + bytes("530f8afbc74536b9a963b4f1c4cb738b"))
        XCTAssertEqual(
            try AESGCM.seal([UInt8](repeating: 0, count: 16), key: zeroKey, nonce: zeroNonce, authenticating: []),
            zeroNonce + bytes("cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"))
        let key = Array(0..<32).map(UInt8.init)
        let nonce = Array(0..<12).map(UInt8.init)
        let data = Array("stash-key-v1\0ep1\0k".utf8)
        let sealed = try AESGCM.seal(Array("stash key bytes!".utf8), key: key, nonce: nonce, authenticating: data)
        XCTAssertEqual(sealed, nonce + bytes("3476b768adc5a97ef461f5f2c58c0b4cfaecd2261b8bf593b381ef874ea53dc3"))
        XCTAssertEqual(try AESGCM.open(sealed[...], key: key, authenticating: data), Array("stash key bytes!".utf8))
    }

    func testEachSealHasItsOwnNonceAndOpensOnlyUnchanged() throws {
        let key = try SecureRandom.bytes(32)
        let plain = Array("sixteen byte key".utf8)
        let first = try AESGCM.seal(plain, key: key, authenticating: [7])
        let second = try AESGCM.seal(plain, key: key, authenticating: [7])
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(first.count, 12 + plain.count + 16)
        XCTAssertEqual(try AESGCM.open(first[...], key: key, authenticating: [7]), plain)
        XCTAssertThrowsError(try AESGCM.open(first[...], key: key, authenticating: [8]))
        XCTAssertThrowsError(try AESGCM.open(first[...], key: try SecureRandom.bytes(32), authenticating: [7]))
        for index in first.indices {
            var changed = first
            changed[index] ^= 0x01
            XCTAssertThrowsError(try AESGCM.open(changed[...], key: key, authenticating: [7]), "byte \(index) changed")
        }
        XCTAssertThrowsError(try AESGCM.open(first[0..<27], key: key, authenticating: [7])) { error in
            XCTAssertTrue("\(error)".contains("27 bytes"), "\(error)")
        }
        XCTAssertThrowsError(try AESGCM.seal(plain, key: [1, 2, 3], authenticating: [])) { error in
            XCTAssertTrue("\(error)".contains("3 bytes"), "\(error)")
        }
    }

    func testRandomBytesAreTheLengthAsked() throws {
        XCTAssertEqual(try SecureRandom.bytes(0), [])
        XCTAssertEqual(try SecureRandom.bytes(-1), [])
        XCTAssertEqual(try SecureRandom.bytes(32).count, 32)
        XCTAssertNotEqual(try SecureRandom.bytes(32), try SecureRandom.bytes(32))
    }
}
