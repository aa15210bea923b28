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

    /// Feeds one raw header line as libcurl delivers it (with its CRLF).
    mutating func consume(line raw: String) {
        let line = trimmed(raw)
        if line.hasPrefix("HTTP/") {
            self = ResponseHeaders()
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            if parts.count >= 2 { status = Int(parts[1]) ?? 0 }
            if parts.count == 3 { reason = String(parts[2]) }
            return
        }
        if line.isEmpty {
            complete = true
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = trimmed(line[line.index(after: colon)...])
        switch name {
        case "content-length": contentLength = Int64(value)
        case "content-range": contentRange = ContentRange(parsing: value)
        case "etag": etag = value.isEmpty ? nil : value
        case "last-modified": lastModified = value.isEmpty ? nil : value
        case "content-type": contentType = trimmed(value.prefix { $0 != ";" }).lowercased()
        case "retry-after": retryAfterSeconds = Int(value).map { max(0, $0) }
        default: break
        }
    }
}

/// Trims without Foundation's CharacterSet, which is slow on a per-header path.
private func trimmed<S: StringProtocol>(_ text: S) -> String {
    var slice = Substring(text)
    while let first = slice.first, first.isWhitespace { slice.removeFirst() }
    while let last = slice.last, last.isWhitespace { slice.removeLast() }
    return String(slice)
}
