/// A byte range of a resource as an MPD writes it (`first-last`, both inclusive), kept as
/// offset and length.
package struct MediaRange: Equatable, Hashable, Sendable {
    package var offset: UInt64
    package var length: UInt64

    package init(offset: UInt64, length: UInt64) {
        self.offset = offset
        self.length = length
    }

    /// The largest position a range may reach: files are addressed with Int64 offsets.
    static let limit = UInt64(Int64.max)

    /// The byte after the range; `parse` and `SegmentIndex` keep it at most `limit`.
    package var end: UInt64 { offset + length }

    /// Reads `first-last` from `element`'s attribute `name`, or nil when absent.
    static func parse(_ element: MPDElement, _ name: String) throws -> MediaRange? {
        guard let text = element[name]?.trimmingSpaces else { return nil }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits: (Substring) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard parts.count == 2, isDigits(parts[0]), isDigits(parts[1]), let first = UInt64(parts[0]), let last = UInt64(parts[1]),
              first <= last, last < limit
        else {
            throw DASHError(.invalidByteRange, "\(element.label) @\(name) '\(text.prefix(60))' is not first-last with first <= last < \(limit)")
        }
        return MediaRange(offset: first, length: last - first + 1)
    }
}
