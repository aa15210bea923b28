/// A rate in bytes per second as a person writes it (`--rate-limit`, the rate schedule):
/// digits with an optional 1024-based suffix K, M, G or T; 0 is no limit.
package enum RateText {
    /// What an error shows as the accepted forms.
    package static let forms = "a whole number of bytes per second, optionally with K, M, G or T (1024-based), e.g. 500K or 2M; 0 = no limit"

    private static let suffixes: [(Character, Int64)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)]

    /// Parses `text`; the error names `field`, the value and the accepted forms.
    package static func parse(_ text: String, field: String) throws -> Int64 {
        var digits = Substring(text.trimmingWhitespace())
        var scale: Int64 = 1
        if let last = digits.last?.uppercased().first, let suffix = suffixes.first(where: { $0.0 == last }) {
            scale = suffix.1
            digits = digits.dropLast()
        }
        // Digits only: Int64("+5") and Int64("-0") would pass.
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int64(digits) else {
            throw StashError.invalidArgument("\(field): '\(text.prefix(100))' is not a rate; expected \(forms)")
        }
        let (value, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else {
            throw StashError.invalidArgument("\(field): '\(text.prefix(100))' is above the largest rate, \(Int64.max) bytes per second")
        }
        return value
    }

    /// The shortest exact form: `1M` for 1048576, `1536K`, `1000`; `0` for no limit.
    package static func format(_ rate: Int64) -> String {
        guard rate > 0 else { return "0" }
        for (letter, scale) in suffixes.reversed() where rate % scale == 0 {
            return "\(rate / scale)\(letter)"
        }
        return "\(rate)"
    }
}
