/// The check every path read from a package playlist passes before it is joined to a folder.
enum LocalPath {
    /// `text` when it is a plain relative path: "/"-separated names, none empty, "." or "..",
    /// no scheme (":"), no backslash, no control character. The package writer uses bare file
    /// names; subfolders are allowed so a hand-arranged package still reads.
    static func check(_ text: Substring, line: Int) throws -> String {
        let components = text.split(separator: "/", omittingEmptySubsequences: false)
        let unsafe = text.isEmpty || components.contains { $0.isEmpty || $0 == "." || $0 == ".." }
            || text.unicodeScalars.contains { $0 == ":" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
        guard !unsafe else {
            throw HLSError(.unsafePath, line: line,
                           "path '\(text.prefix(200))' is not a plain relative name inside the package folder")
        }
        return String(text)
    }
}
