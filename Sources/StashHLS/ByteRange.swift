/// A sub-range of a resource: `length` bytes starting at `offset`.
package struct ByteRange: Equatable, Hashable, Sendable {
    package var length: UInt64
    package var offset: UInt64

    package init(length: UInt64, offset: UInt64) {
        self.length = length
        self.offset = offset
    }

    /// The largest position a range may reach: files are addressed with Int64 offsets (Range
    /// headers, part files), so a range past it is refused when the playlist is parsed.
    static let limit = UInt64(Int64.max)

    /// The first byte after the range, where an offset-less EXT-X-BYTERANGE continues; parsing
    /// keeps it at most `limit`.
    package var end: UInt64 { offset + length }

    /// Parses `<length>[@<offset>]` (RFC 8216 section 4.3.2.2). The offset is nil when absent:
    /// only the caller knows what it continues from.
    static func parse(_ text: Substring, line: Int, field: String) throws -> (length: UInt64, offset: UInt64?) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = AttributeList.decimalInteger(parts[0]), length > 0, length <= limit else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' must be <length>[@<offset>] with a length from 1 to \(limit)")
        }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = AttributeList.decimalInteger(parts[1]) else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' has an offset that is not a decimal integer")
        }
        guard length <= limit, offset <= limit - length else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' ends beyond byte \(limit), the largest file position")
        }
        return (length, offset)
    }
}
