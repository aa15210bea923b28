/// The attribute types of ISO/IEC 23009-1 that carry numbers, each read strictly: a value that
/// does not parse, or is out of its range, is an error naming the attribute, the element and
/// the value, never a default.
enum MPDValue {
    /// An `xs:unsignedInt`/`xs:unsignedLong` attribute, or nil when absent.
    static func unsigned(_ element: MPDElement, _ name: String, max: UInt64 = .max) throws -> UInt64? {
        guard let text = element[name]?.trimmingSpaces else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text), value <= max else {
            throw DASHError(.invalidAttribute, "\(element.label) @\(name) '\(text.prefix(40))' is not an integer from 0 to \(max)")
        }
        return value
    }

    /// An `xs:duration` attribute in seconds, or nil when absent.
    static func duration(_ element: MPDElement, _ name: String) throws -> Double? {
        guard let text = element[name] else { return nil }
        guard let seconds = ISODuration.seconds(text.trimmingSpaces) else {
            throw DASHError(.invalidDuration, "\(element.label) @\(name) '\(text.prefix(40))' is not an ISO 8601 duration such as PT1H2M3.5S")
        }
        guard seconds <= DASHError.maxPresentationSeconds else {
            throw DASHError(.invalidDuration, "\(element.label) @\(name) '\(text.prefix(40))' is \(seconds) s; the limit is \(DASHError.maxPresentationSeconds) s")
        }
        return seconds
    }

    /// A `FrameRateType` (`25`, `30000/1001`) as frames per second, or nil when absent.
    static func frameRate(_ element: MPDElement) throws -> Double? {
        guard let text = element["frameRate"]?.trimmingSpaces else { return nil }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = parts.map { part in part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? UInt32(part) : nil }
        guard let numerator = numbers.first ?? nil, numbers.count == 1 || numbers[1] != nil, numbers.last != 0 else {
            throw DASHError(.invalidAttribute, "\(element.label) @frameRate '\(text.prefix(40))' is not a frame rate such as 25 or 30000/1001")
        }
        let denominator = numbers.count == 2 ? numbers[1] ?? 1 : 1
        return Double(numerator) / Double(denominator)
    }
}
