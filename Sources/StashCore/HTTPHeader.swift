import Foundation

/// A request header a client asked to send with every request of a download.
public struct HTTPHeader: Equatable, Sendable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value` as typed on the command line.
    public init(parsing line: String) throws {
        guard let colon = line.firstIndex(of: ":") else {
            throw StashError.invalidArgument("header '\(line)' has no ':'; write it as 'Name: value'")
        }
        self.init(
            name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
            value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        try validate()
    }

    /// Refuses names that are not HTTP tokens and values with CR, LF or NUL, which would let a
    /// client inject headers of its own into the request. Each refusal names the header, the
    /// value (cut, its control characters escaped) and the rule.
    package func validate() throws {
        let tokenChars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.count <= Self.maxNameLength, name.allSatisfy({ tokenChars.contains($0) }) else {
            throw StashError.invalidArgument(
                "header name '\(Self.shown(name))' is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~; 1 to \(Self.maxNameLength) characters)")
        }
        guard value.utf8.count <= Self.maxValueBytes else {
            throw StashError.invalidArgument("header '\(name)' value '\(Self.shown(value))' is \(value.utf8.count) bytes; the limit is \(Self.maxValueBytes)")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw StashError.invalidArgument("header '\(name)' value '\(Self.shown(value))' holds CR, LF or NUL, which a header value may not")
        }
    }

    static let maxNameLength = 256
    static let maxValueBytes = 8192

    /// A name or value as an error message shows it: its first 64 characters, CR, LF and NUL
    /// escaped so the message stays one line.
    private static func shown(_ text: String) -> String {
        let escaped = text.prefix(64).unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\r": return "\\r"
            case "\n": return "\\n"
            case "\0": return "\\0"
            default: return String(scalar)
            }
        }.joined()
        return text.count > 64 ? escaped + "…" : escaped
    }
}
