import StashCore

/// A download's network and on-battery rules on the wire: a word, "" for none given (the
/// config's holds).
extension NetworkRequirement {
    init?(wire text: UnsafePointer<CChar>?, field: StaticString) throws {
        let word = try WireValue.string(text, field: field)
        guard !word.isEmpty else { return nil }
        try self.init(parsing: word, field: "\(field)")
    }
}

extension BatteryPolicy {
    init?(wire text: UnsafePointer<CChar>?, field: StaticString) throws {
        let word = try WireValue.string(text, field: field)
        guard !word.isEmpty else { return nil }
        try self.init(parsing: word, field: "\(field)")
    }
}
