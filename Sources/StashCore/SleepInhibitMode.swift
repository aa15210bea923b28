/// The lock on sleep stashd takes from logind while downloads run: `delay` (sleep waits until
/// stashd lets go, which it does at once when sleep is announced), `block` (no sleep while
/// downloads run), or `no` (none).
public enum SleepInhibitMode: String, CaseIterable, Sendable, Codable {
    case delay
    case block
    case no

    /// Parses the setting's text; the error names the field, the value and what it may be.
    package init(parsing text: String, field: String) throws {
        guard let value = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw StashError.invalidArgument("\(field): '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = value
    }
}
