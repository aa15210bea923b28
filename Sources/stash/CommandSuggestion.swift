import ArgumentParser

/// A command name that is not one: said as such, with the nearest commands, instead of
/// ArgumentParser's "Unexpected argument 'lst'", which does not tell a mistyped command from
/// an extra argument.
struct CommandSuggestion: Equatable {
    /// The words before the unknown one, from the root: `stash config`.
    var path: String
    var unknown: String
    /// The nearest names; empty when none is near.
    var nearest: [String]
    var all: [String]

    /// The first word of `arguments` (the command line without the program) that should name
    /// a command and names none, when there is one.
    static func find(in arguments: [String], root: ParsableCommand.Type = StashCommand.self) -> CommandSuggestion? {
        var command = root
        var path = root.configuration.commandName ?? "stash"
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--" { return nil }
            if word.hasPrefix("-") {
                // The one option before a command that takes a value in the next word.
                if word == "--socket" { _ = words.popFirst() }
                continue
            }
            let subcommands = command.configuration.subcommands
            // A command without subcommands takes its own arguments from here.
            guard !subcommands.isEmpty else { return nil }
            var names = subcommands.compactMap { $0.configuration.commandName }
            if command == root { names.append("help") }
            guard let next = subcommands.first(where: { $0.configuration.commandName == word }) else {
                if command == root, word == "help" { return nil }
                return CommandSuggestion(path: path, unknown: word, nearest: nearest(to: word, among: names), all: names)
            }
            command = next
            path += " " + word
        }
        return nil
    }

    var message: String {
        let hint = nearest.isEmpty
            ? "the commands are \(all.joined(separator: ", "))"
            : "did you mean " + nearest.map { "'\(path) \($0)'" }.joined(separator: " or ") + "?"
        return "'\(unknown)' is not a command of '\(path)'; \(hint) (see '\(path) --help')"
    }

    /// The names `word` begins (`can` for cancel), else those at the smallest edit distance
    /// from it when that is small for their lengths (`lst` and `list` for ls, not `rm`), a
    /// name with the same first letter before one without.
    static func nearest(to word: String, among names: [String]) -> [String] {
        let word = word.lowercased()
        if word.count >= 2 {
            let completions = names.filter { $0.hasPrefix(word) }
            if !completions.isEmpty { return completions }
        }
        let scored = names.compactMap { name -> (name: String, score: Int)? in
            let distance = editDistance(word, name)
            guard distance <= 2, distance < max(word.count, name.count) else { return nil }
            return (name, distance * 2 + (name.first == word.first ? 0 : 1))
        }
        guard let best = scored.map(\.score).min() else { return [] }
        return scored.filter { $0.score == best }.map(\.name)
    }

    /// Insertions, deletions, substitutions and swaps of neighbours (`lsit` is one from `list`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, table[i - 2][j - 2] + 1) }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
