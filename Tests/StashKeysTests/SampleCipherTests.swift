import StashKeys
import XCTest

/// CENC 'cenc' samples: AES-128-CTR whose counter runs on across a sample's protected ranges.
final class SampleCipherTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    /// NIST SP 800-38A F.5.2 (CTR-AES128.Decrypt), its first two blocks split in uneven
    /// protected ranges around clear bytes.
    func testTheCounterRunsOnAcrossProtectedRanges() throws {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
        let counter = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let cipher = hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff")
        let plain = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        var bytes = [0xC0, 0xC1] + Array(cipher[0..<7]) + [0xC2] + Array(cipher[7...])
        try SampleCipher.decrypt(&bytes, protected: [2..<9, 10..<35], key: key, counter: counter)
        XCTAssertEqual(bytes, [0xC0, 0xC1] + Array(plain[0..<7]) + [0xC2] + Array(plain[7...]))
    }

    func testRangesOutsideTheBytesAndWrongSizesAreRefused() {
        var bytes = [UInt8](repeating: 0, count: 32)
        XCTAssertThrowsError(try SampleCipher.decrypt(&bytes, protected: [30..<40], key: Array(repeating: 1, count: 16), counter: Array(repeating: 0, count: 16)))
        XCTAssertThrowsError(try SampleCipher.decrypt(&bytes, protected: [0..<16], key: Array(repeating: 1, count: 15), counter: Array(repeating: 0, count: 16)))
        XCTAssertThrowsError(try SampleCipher.decrypt(&bytes, protected: [0..<16], key: Array(repeating: 1, count: 16), counter: Array(repeating: 0, count: 8)))
        XCTAssertEqual(bytes, [UInt8](repeating: 0, count: 32))
    }
}
