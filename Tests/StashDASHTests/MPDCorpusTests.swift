import Foundation
import StashDASH
import XCTest

/// The MPD corpus (`Corpus/`): MPDs written from the standard and in the shapes of the common
/// packagers and test vectors, each with a comment that says what stash must make of it:
///
///     corpus: what it is
///     expect: accepted | refused <code> <words the message must hold>
///     representations: <ids of every period, in order>
///     duration: <seconds>
///     segments: <id>=<count> ...
///     first: <id>=<the first media segment's URL>
final class MPDCorpusTests: XCTestCase {
    private static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus").path

    private struct Entry {
        var name: String
        var text: String
        var fields: [String: String]
    }

    private func corpus() throws -> [Entry] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { $0.hasSuffix(".mpd") }.sorted()
        return try names.map { name in
            let text = try String(contentsOfFile: Self.directory + "/" + name, encoding: .utf8)
            var fields: [String: String] = [:]
            if let open = text.range(of: "<!--"), let close = text.range(of: "-->", range: open.upperBound..<text.endIndex) {
                for line in text[open.upperBound..<close.lowerBound].split(separator: "\n") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    fields[line[..<colon].trimmingCharacters(in: .whitespaces)] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return Entry(name: name, text: text, fields: fields)
        }
    }

    func testEachMPDIsReadOrRefusedAsItsCommentSays() throws {
        let entries = try corpus()
        XCTAssertGreaterThanOrEqual(entries.count, 20, "the corpus is read from \(Self.directory)")
        for entry in entries {
            let expect = try XCTUnwrap(entry.fields["expect"], "\(entry.name) has no 'expect:' line")
            XCTAssertNotNil(entry.fields["corpus"], "\(entry.name) says what it is")
            let url = "https://corpus.example.com/vod/" + entry.name
            if expect == "accepted" {
                do {
                    try check(entry, try MPD.parse(Array(entry.text.utf8), url: url))
                } catch {
                    XCTFail("\(entry.name) is refused: \(error)")
                }
                continue
            }
            let words = expect.split(separator: " ", maxSplits: 2).map(String.init)
            XCTAssertEqual(words.first, "refused", entry.name)
            XCTAssertThrowsError(try MPD.parse(Array(entry.text.utf8), url: url), entry.name) { error in
                guard let error = error as? DASHError else { return XCTFail("\(entry.name): not a DASHError: \(error)") }
                XCTAssertEqual(error.code.rawValue, words.count > 1 ? words[1] : "", "\(entry.name): \(error.message)")
                let mentions = words.count > 2 ? words[2] : ""
                XCTAssertTrue(error.message.contains(mentions), "\(entry.name): '\(error.message)' does not say '\(mentions)'")
            }
        }
    }

    private func check(_ entry: Entry, _ mpd: MPD) throws {
        let representations = mpd.periods.flatMap { $0.adaptationSets.flatMap(\.representations) }
        if let ids = entry.fields["representations"] {
            XCTAssertEqual(representations.map(\.id), ids.split(separator: " ").map(String.init), entry.name)
        }
        if let duration = entry.fields["duration"].flatMap(Double.init) {
            XCTAssertEqual(mpd.duration, duration, accuracy: 1e-9, entry.name)
        }
        for pair in (entry.fields["segments"] ?? "").split(separator: " ") {
            let parts = pair.split(separator: "=").map(String.init)
            let representation = try XCTUnwrap(representations.first { $0.id == parts[0] }, "\(entry.name): no \(parts[0])")
            XCTAssertEqual(representation.segmentCount, Int(parts[1]), "\(entry.name): \(parts[0])")
            XCTAssertEqual(try mpd.segments(of: parts[0]).media.count, Int(parts[1]), "\(entry.name): \(parts[0]) expanded")
        }
        if let first = entry.fields["first"] {
            let parts = first.split(separator: "=", maxSplits: 1).map(String.init)
            XCTAssertEqual(try mpd.segments(of: parts[0]).media.first?.url, parts[1], entry.name)
        }
    }
}
