/// A parsed `Content-Range: bytes first-last/size` (206) or `bytes */size` (416). Only
/// well-formed values parse: bounds in order, not negative, and inside `size` when it is
/// known (RFC 9110 §14.4), so every later sum over them is known not to overflow.
struct ContentRange: Equatable {
    /// nil for the unsatisfied form `*/size`.
    var first: Int64?
    var last: Int64?
    /// nil when the server wrote `*` for an unknown size.
    var size: Int64?

    init(first: Int64?, last: Int64?, size: Int64?) {
        self.first = first
        self.last = last
        self.size = size
    }

    init?(parsing text: String) {
        let trimmed = text.split(separator: " ", maxSplits: 1)
        guard trimmed.count == 2, trimmed[0].lowercased() == "bytes" else { return nil }
        let halves = trimmed[1].split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            size = nil
        } else {
            guard let total = Self.number(halves[1]) else { return nil }
            size = total
        }
        if halves[0] == "*" {
            guard size != nil else { return nil }
            first = nil
            last = nil
        } else {
            let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let low = Self.number(bounds[0]), let high = Self.number(bounds[1]), low <= high else { return nil }
            if let size, high >= size { return nil }
            first = low
            last = high
        }
    }

    /// Bytes in `first...last`; nil for `*/size` and for the one range whose count does not
    /// fit an Int64 (`0-9223372036854775807`).
    var length: Int64? {
        guard let first, let last else { return nil }
        let (span, overflow) = (last - first).addingReportingOverflow(1)
        return overflow ? nil : span
    }

    /// Digits only: `Int64("+5")` and `Int64("-0")` parse, and neither is a byte position.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
