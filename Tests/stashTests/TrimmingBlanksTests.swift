import Foundation
import XCTest

@testable import stash

/// The CLI's own trim leaves what Foundation's `trimmingCharacters(in: .whitespaces)` leaves.
final class TrimmingBlanksTests: XCTestCase {
    func testItTrimsWhatFoundationTrims() {
        let samples = [
            "", " ", "\t \t", "https://h/x", "  https://h/x\t", "\u{00A0}https://h/x\u{3000}", "\u{2009}a b\u{2009}",
            "a\n", "\na", " \r\n ", "é ", " 🇫🇷", "\u{200B}a\u{200B}", "a \u{0301}",
        ]
        for sample in samples {
            XCTAssertEqual(sample.trimmingBlanks(), sample.trimmingCharacters(in: .whitespaces), sample.debugDescription)
            XCTAssertEqual(sample[...].trimmingBlanks(), sample.trimmingCharacters(in: .whitespaces), sample.debugDescription)
        }
    }
}
