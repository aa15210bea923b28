/// What a parser let pass that RFC 8216 does not (a line it ignored, a value it filled in), so
/// `stash plan` can say what it read differently from the text. Bounded: a hostile playlist of
/// 16 MiB of stray lines must not become an answer of millions of lines, so the first `limit`
/// are kept and the rest are counted in one last line.
package struct PlaylistWarnings: Equatable, Sendable {
    /// Warnings a parser keeps per playlist.
    package static let perPlaylist = 20
    /// Warnings a plan keeps over all its playlists.
    package static let perPlan = 100

    private let limit: Int
    private var kept: [String] = []
    private var dropped = 0

    package init(limit: Int = perPlaylist) {
        self.limit = limit
    }

    /// The warnings, with "line N: " before each that has a line, and one line for those past the limit.
    package var lines: [String] {
        dropped == 0 ? kept : kept + ["\(dropped) more warning(s) not shown"]
    }

    package var isEmpty: Bool { kept.isEmpty }

    mutating func add(line: Int?, _ message: String) {
        guard kept.count < limit else {
            if dropped < .max { dropped += 1 }
            return
        }
        kept.append(line.map { "line \($0): \(message)" } ?? message)
    }
}
