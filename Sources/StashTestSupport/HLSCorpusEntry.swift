import Foundation

/// One playlist of the HLS corpus (`Tests/StashHLSTests/Corpus`) and what stash must make of
/// it, read from its `## key: value` lines. Such a line is a comment to RFC 8216 and to every
/// player, so the file stays the playlist it describes:
///
/// - `## corpus: TEXT` what the playlist is and where its shape comes from;
/// - `## expect: accepted`, or `## expect: refused CODE TEXT` (an `HLSError.Code` and text its
///   message must contain);
/// - `## warning: TEXT`, once per warning the parse must give, each containing its TEXT;
/// - `## ffprobe: no WHY` when ffmpeg cannot read it, so there is no reading to compare;
/// - `## pad-to-bytes: N` to grow it with comment lines to N bytes (a size git should not hold).
package struct HLSCorpusEntry: Sendable {
    package enum Expectation: Sendable, Equatable {
        case accepted
        case refused(code: String, mentions: String)
    }

    /// The file name, e.g. `quirk-no-targetduration.m3u8`.
    package let name: String
    package let text: String
    package let description: String
    package let expectation: Expectation
    /// One text per expected warning.
    package let warnings: [String]
    /// Why ffprobe is not run on it; nil when it is.
    package let ffprobeSkipped: String?

    /// Every `.m3u8` file of `directory`, by name.
    package static func load(directory: String) throws -> [HLSCorpusEntry] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".m3u8") }.sorted()
        return try names.map { try HLSCorpusEntry(name: $0, text: String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) }
    }

    /// - Throws: `HLSFixtureError` for a `##` line it does not know, or a missing `corpus` or
    ///   `expect`, so a misspelt expectation cannot pass by being ignored.
    package init(name: String, text: String) throws {
        var description: String?
        var expectation: Expectation?
        var warnings: [String] = []
        var skipped: String?
        var padding: Int?
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) where line.hasPrefix("## ") {
            let field = line.dropFirst(3)
            guard let colon = field.firstIndex(of: ":") else { throw HLSFixtureError("\(name): '\(line)' is not '## key: value'") }
            let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field[..<colon] {
            case "corpus": description = value
            case "warning": warnings.append(value)
            case "ffprobe" where value.hasPrefix("no "): skipped = String(value.dropFirst(3))
            case "pad-to-bytes": padding = Int(value)
            case "expect" where value == "accepted": expectation = .accepted
            case "expect" where value.hasPrefix("refused "):
                let rest = value.dropFirst("refused ".count)
                let code = rest.prefix { $0 != " " }
                expectation = .refused(code: String(code), mentions: rest.dropFirst(code.count).trimmingCharacters(in: .whitespaces))
            default: throw HLSFixtureError("\(name): '\(line)' is not a corpus line this reader knows")
            }
        }
        guard let description, let expectation else { throw HLSFixtureError("\(name): a corpus playlist needs '## corpus:' and '## expect:' lines") }
        self.name = name
        self.description = description
        self.expectation = expectation
        self.warnings = warnings
        self.ffprobeSkipped = skipped
        self.text = padding.map { Self.padded(text, to: $0) } ?? text
    }

    private static func padded(_ text: String, to size: Int) -> String {
        let line = "# " + String(repeating: "x", count: 1021) + "\n"
        var result = text.hasSuffix("\n") ? text : text + "\n"
        while result.utf8.count + line.utf8.count <= size { result += line }
        return result + "#" + String(repeating: "x", count: max(0, size - result.utf8.count - 2)) + "\n"
    }
}
