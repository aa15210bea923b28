/// The headers of the response currently arriving. A new status line starts over, so after a
/// redirect this describes the final response only.
struct ResponseHeaders: Equatable {
    var status = 0
    var reason = ""
    var contentLength: Int64?
    var contentRange: ContentRange?
    var etag: String?
    var lastModified: String?
    var retryAfterSeconds: Int?
    /// Lowercased, without parameters (`application/vnd.apple.mpegurl`); "" when absent.
    var contentType = ""
    /// True once the blank line that ends a header block arrived.
    var complete = false

    /// Feeds one raw header line (with its CRLF).
    mutating func consume(line raw: String) {
        var raw = raw
        raw.withUTF8 { consume(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Feeds one raw header line as libcurl delivers it. Works on the bytes, and makes a
    /// String only of the values it keeps: a response has a dozen headers and most are
    /// not read.
    mutating func consume(bytes raw: UnsafeRawBufferPointer) {
        let line = trimmed(raw[...])
        if line.starts(with: "HTTP/".utf8) {
            self = ResponseHeaders()
            let parts = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            if parts.count >= 2 { status = Int(parts[1]) ?? 0 }
            if parts.count == 3 { reason = String(parts[2]) }
            return
        }
        if line.isEmpty {
            complete = true
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = line[..<colon]
        let value = { String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self) }
        if Self.is(name, "content-length") {
            contentLength = Self.digits(value())
        } else if Self.is(name, "content-range") {
            contentRange = ContentRange(parsing: value())
        } else if Self.is(name, "etag") {
            let etag = value()
            self.etag = etag.isEmpty ? nil : etag
        } else if Self.is(name, "last-modified") {
            let date = value()
            lastModified = date.isEmpty ? nil : date
        } else if Self.is(name, "content-type") {
            let type = trimmed(line[(colon + 1)...])
            contentType = String(decoding: trimmed(type.prefix { $0 != UInt8(ascii: ";") }), as: UTF8.self).lowercased()
        } else if Self.is(name, "retry-after") {
            retryAfterSeconds = Self.retryAfter(value())
        }
    }

    /// The longest wait a Retry-After can ask for. Longer (up to any number of digits) is read
    /// as this: the retry policy's own maximum delay is lower anyway, and a wait in seconds
    /// must stay far from overflowing when turned into milliseconds or nanoseconds.
    static let maxRetryAfterSeconds = 86_400

    /// Delay-seconds only; an HTTP-date (the other form) is ignored and the policy's backoff
    /// applies.
    static func retryAfter(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        guard let seconds = Int(text) else { return maxRetryAfterSeconds }
        return min(seconds, maxRetryAfterSeconds)
    }

    /// A non-negative decimal that fits an Int64 (a Content-Length); anything else, signs
    /// included, is no value at all.
    static func digits(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }

    /// Whether a header name is `lowercaseName`, ignoring case (names are ASCII letters and
    /// dashes, and `| 0x20` lowercases both).
    private static func `is`(_ name: Slice<UnsafeRawBufferPointer>, _ lowercaseName: StaticString) -> Bool {
        guard name.count == lowercaseName.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercaseName.utf8Start, count: lowercaseName.utf8CodeUnitCount)
        return zip(name, expected).allSatisfy { $0 | 0x20 == $1 }
    }
}

/// Without the spaces, tabs, CR and LF at either end.
private func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    var slice = bytes
    while let first = slice.first, isSpace(first) { slice.removeFirst() }
    while let last = slice.last, isSpace(last) { slice.removeLast() }
    return slice
}
