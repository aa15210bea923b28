import Foundation
import StashKeys
import StashTestSupport
import XCTest

final class Base64URLTests: XCTestCase {
    func testRFC4648Vectors() {
        let vectors = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64URL.decode(encoded), Array(plain.utf8), encoded)
        }
    }

    func testUsesTheURLAlphabet() {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
    }

    func testRoundTripsAndMatchesFoundation() {
        var generator = SeededRandom.seeded()
        for count in 0...40 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            XCTAssertEqual(encoded, foundation, "\(count) bytes")
            XCTAssertEqual(Base64URL.decode(encoded), bytes, "\(count) bytes")
        }
    }

    func testAcceptsPadding() {
        XCTAssertEqual(Base64URL.decode("Zg=="), Array("f".utf8))
        XCTAssertEqual(Base64URL.decode("Zm8="), Array("fo".utf8))
        XCTAssertEqual(Base64URL.decode("AAECAwQFBgcICQoLDA0ODw=="), Array(0..<16))
    }

    func testRefusesWhatIsNotBase64URL() {
        let refused = [
            "+_8", "-/8", "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v!", "Zm9vé",
            "Z", "Zm9vY", "Zg=", "Zg===", "Zm9v=", "Zm9v====", "=Zg=", "Z=g=", "Zm=8", "Z===",
            // Leftover bits that are not zero: another spelling of "f".
            "Zh", "Zh==",
        ]
        for text in refused {
            XCTAssertNil(Base64URL.decode(text), String(reflecting: text))
        }
    }
}
