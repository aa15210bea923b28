/// Which networks a download may use: any (stash's behaviour without D-Bus), or only one
/// NetworkManager does not call metered (a phone's tether, a capped plan).
public enum NetworkRequirement: String, CaseIterable, Sendable, Codable {
    case any
    case unmetered

    /// Parses the setting's text; the error names the field, the value and what it may be.
    package init(parsing text: String, field: String) throws {
        guard let value = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw StashError.invalidArgument("\(field): '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = value
    }
}
