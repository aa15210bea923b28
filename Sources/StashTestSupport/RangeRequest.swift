import Foundation

/// What a `Range` header asks of a body of a given size (RFC 9110 section 14.1.2): one of
/// `bytes=a-`, `bytes=a-b` or `bytes=-n`. Several ranges, other units and malformed values are
/// ignored, as a server without range support would.
enum RangeRequest: Equatable {
    /// Send the whole body with 200.
    case ignored
    /// 416: the range starts past the end (or asks for the last 0 bytes).
    case unsatisfiable
    /// 206 with these bytes.
    case bytes(Range<Int>)

    init(header value: String, size: Int) {
        guard value.hasPrefix("bytes="), !value.contains(",") else {
            self = .ignored
            return
        }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .ignored
            return
        }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // A suffix: the last n bytes.
            guard let n = Self.number(last) else {
                self = .ignored
                return
            }
            self = n == 0 || size == 0 ? .unsatisfiable : .bytes(max(0, size - n)..<size)
            return
        }
        guard let start = Self.number(first) else {
            self = .ignored
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let requestedEnd = Self.number(last), requestedEnd >= start else {
                self = .ignored
                return
            }
            end = min(end, requestedEnd)
        }
        self = start >= size ? .unsatisfiable : .bytes(start..<(end + 1))
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
