/// A sub-range of a resource: `length` bytes starting at `offset`.
public struct ByteRange: Equatable, Hashable, Sendable {
    public var length: UInt64
    public var offset: UInt64

    public init(length: UInt64, offset: UInt64) {
        self.length = length
        self.offset = offset
    }

    /// The first byte after the range, where an offset-less EXT-X-BYTERANGE continues.
    public var end: UInt64 { offset + length }

    /// Parses `<length>[@<offset>]` (RFC 8216 section 4.3.2.2). The offset is nil when absent:
    /// only the caller knows what it continues from.
    static func parse(_ text: Substring, line: Int, field: String) throws -> (length: UInt64, offset: UInt64?) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = AttributeList.decimalInteger(parts[0]), length > 0 else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' must be <length>[@<offset>] with a length of at least 1")
        }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = AttributeList.decimalInteger(parts[1]) else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' has an offset that is not a decimal integer")
        }
        guard offset <= UInt64.max - length else {
            throw HLSError(.invalidByteRange, line: line, "\(field) '\(text)' ends beyond 2^64 bytes")
        }
        return (length, offset)
    }
}
