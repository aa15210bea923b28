import Foundation

/// URL resolution for MPDs: each BaseURL and each segment URL is resolved against the base of
/// the level above it (RFC 3986 section 5), and what results must be http(s).
enum MPDURL {
    static func resolve(_ reference: String, against base: URL, field: String) throws -> URL {
        let text = reference.trimmingSpaces
        guard let url = URL(string: text, relativeTo: base)?.absoluteURL, isHTTP(url) else {
            throw DASHError(.invalidURI, "\(field) '\(text.prefix(200))' is not an http(s) URL once resolved against \(base.absoluteString.prefix(200))")
        }
        return url
    }

    /// The base below `element`: its first BaseURL resolved against `base`, or `base` itself.
    /// Further BaseURLs are alternatives (mirrors) of the first; one is enough to fetch.
    static func base(of element: MPDElement, against base: URL) throws -> URL {
        guard let first = element.first("BaseURL") else { return base }
        return try resolve(first.text, against: base, field: first.label)
    }

    static func isHTTP(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host else { return false }
        return (scheme == "http" || scheme == "https") && !host.isEmpty
    }
}
