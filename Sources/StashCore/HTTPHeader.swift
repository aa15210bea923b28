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
    /// client inject headers of its own into the request.
    package func validate() throws {
        let tokenChars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.count <= 256, name.allSatisfy({ tokenChars.contains($0) }) else {
            throw StashError.invalidArgument("header name '\(name)' is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~; 1 to 256 characters)")
        }
        guard value.utf8.count <= 8192, !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw StashError.invalidArgument("header '\(name)' value must be at most 8192 bytes without CR, LF or NUL")
        }
    }
}
