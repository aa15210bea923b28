/// What a file's content must be: a kind (`--expect image|video|audio|text`), one MIME type
/// (`--expect application/pdf`), or, for an HLS segment, its container. Stored as its
/// `description` (`image`, `application/pdf`, `segment:ts`).
package enum ContentExpectation: Hashable, Sendable, CustomStringConvertible {
    case kind(ContentKind)
    /// A lowercased `type/subtype`, without parameters.
    case mime(String)
    /// Set by the daemon for the segments it plans; a client cannot ask for it.
    case segment(SegmentContainer)

    /// The longest MIME type accepted (RFC 6838 allows 127 bytes for each half).
    package static let maxMIMEBytes = 255

    /// A client's value of `field`: a kind or a `type/subtype` (case-insensitive); "" is none.
    /// The error names the field, the value and what it may be.
    package static func parse(_ text: String, field: String) throws -> ContentExpectation? {
        if text.isEmpty { return nil }
        let value = text.lowercased()
        if let kind = ContentKind(rawValue: value) { return .kind(kind) }
        let halves = value.split(separator: "/", omittingEmptySubsequences: false)
        guard value.utf8.count <= maxMIMEBytes, halves.count == 2, halves.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isTokenByte) }) else {
            throw StashError.invalidArgument(
                "\(field) '\(text.prefix(300))' is not image, video, audio, text or a MIME type such as image/png (type/subtype, at most \(maxMIMEBytes) bytes, no parameters or wildcards)")
        }
        return .mime(value)
    }

    /// A stored value, as the registry holds it; nil for "" and for what this daemon cannot
    /// read (a row written by a later one), which then checks nothing.
    package init?(stored text: String) {
        if text.hasPrefix("segment:") {
            guard let container = SegmentContainer(rawValue: String(text.dropFirst("segment:".count))) else { return nil }
            self = .segment(container)
        } else {
            guard let parsed = (try? Self.parse(text, field: "expect")) ?? nil else { return nil }
            self = parsed
        }
    }

    package var description: String {
        switch self {
        case .kind(let kind): return kind.rawValue
        case .mime(let type): return type
        case .segment(let container): return "segment:" + container.rawValue
        }
    }

    /// What a message says was expected: "an image", "application/pdf".
    var phrase: String {
        switch self {
        case .kind(let kind): return kind.phrase
        case .mime(let type): return type
        case .segment(let container): return container.phrase
        }
    }

    /// RFC 9110 tchar, without the wildcard '*'.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'+-.^_`|~".utf8).contains(byte)
        }
    }
}
