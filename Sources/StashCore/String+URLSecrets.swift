extension String {
    /// This text with the secrets URLs carry taken out of every http(s) URL in it: the query
    /// and fragment (where signed URLs keep their tokens) become `?…`, and a user and password
    /// before the host are dropped. For what goes to the log: error messages name the URL
    /// that failed, and a log is read by more people than the app that gave the URL.
    package var withoutURLSecrets: String {
        // Without '@', '?' or '#' there is nothing to take out (every download's log line
        // passes here, so the common case is one pass over the bytes).
        guard utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return self }
        var result = ""
        var rest = self[...]
        while let start = rest.range(of: "http", options: .caseInsensitive)?.lowerBound {
            result += rest[..<start]
            let candidate = rest[start...]
            let head = candidate.prefix(8).lowercased()
            let schemeLength = head.hasPrefix("https://") ? 8 : head.hasPrefix("http://") ? 7 : 0
            guard schemeLength > 0 else {
                result += candidate.prefix(4)
                rest = candidate.dropFirst(4)
                continue
            }
            let urlEnd = candidate.firstIndex(where: Self.endsURL) ?? candidate.endIndex
            result += Self.redact(candidate[..<urlEnd], schemeLength: schemeLength)
            rest = candidate[urlEnd...]
        }
        return result + rest
    }

    private static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || "\"'<>()[]{}".contains(character)
    }

    private static func redact(_ url: Substring, schemeLength: Int) -> String {
        let afterScheme = url.dropFirst(schemeLength)
        let authorityEnd = afterScheme.firstIndex(where: { "/?#".contains($0) }) ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let tail = afterScheme[authorityEnd...]
        let path = tail.prefix { $0 != "?" && $0 != "#" }
        return String(url.prefix(schemeLength)) + authority + path + (path.endIndex < tail.endIndex ? "?…" : "")
    }
}
