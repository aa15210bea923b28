/// What a download does while the machine runs on battery (UPower's `OnBattery`): go on, or
/// wait for AC power.
public enum BatteryPolicy: String, CaseIterable, Sendable, Codable {
    case `continue`
    case pause

    /// Parses the setting's text; the error names the field, the value and what it may be.
    package init(parsing text: String, field: String) throws {
        guard let value = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw StashError.invalidArgument("\(field): '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = value
    }
}
