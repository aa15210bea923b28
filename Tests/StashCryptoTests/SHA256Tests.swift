import XCTest

@testable import StashCrypto

final class SHA256Tests: XCTestCase {
    // FIPS 180-2 appendix B's examples, and the empty input.
    func testKnownAnswers() {
        XCTAssertEqual(SHA256.hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256().finalizeHex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testPiecesGiveTheDigestOfTheWholeAndFinalizeLetsItGoOn() {
        let whole = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hasher = SHA256()
        var offset = 0
        var step = 1
        while offset < whole.count {
            let end = min(whole.count, offset + step)
            whole[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
            step = step * 3 + 1
        }
        XCTAssertEqual(hasher.finalize(), SHA256.hash(whole))
        // A digest read midway (a part file's) does not end the hasher.
        hasher.update([1, 2, 3])
        XCTAssertEqual(hasher.finalize(), SHA256.hash(whole + [1, 2, 3]))
        hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
        XCTAssertEqual(hasher.finalizeHex(), SHA256.hex(SHA256.hash(whole + [1, 2, 3])))
    }
}
