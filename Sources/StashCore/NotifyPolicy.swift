/// Which completions become a desktop notification (org.freedesktop.Notifications): none, one
/// per group (a download without a group is its own), or one per download.
public enum NotifyPolicy: String, CaseIterable, Sendable, Codable {
    case none
    case groups
    case all

    /// Parses the setting's text; the error names the field, the value and what it may be.
    package init(parsing text: String, field: String) throws {
        guard let value = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw StashError.invalidArgument("\(field): '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = value
    }
}
