import Foundation
import StashCore

/// Where a transfer may follow a redirect, and what it takes along. libcurl would follow
/// redirects itself, but it sends custom headers (an app's `X-Api-Key`, a licence token) to
/// every host on the way; only Authorization and Cookie are guarded. So redirects are
/// followed here, one attempt each, and these rules decide.
enum RedirectRule {
    /// At most this many redirects per attempt, as before with CURLOPT_MAXREDIRS.
    static let maxRedirects = 10

    /// Why `location` may not be followed from `current`, or nil when it may.
    static func refusal(from current: String, to location: String) -> String? {
        guard let target = Origin(location) else {
            return "only http and https URLs are fetched: redirect from \(current) to \(location) refused"
        }
        if Origin(current)?.scheme == "https", target.scheme == "http" {
            return "redirect from https to http refused (\(current) to \(location)): the rest of the download would travel in the clear"
        }
        return nil
    }

    /// Whether headers given for `original` go to `url`: only on the same scheme, host and port.
    static func carriesHeaders(from original: String, to url: String) -> Bool {
        // Every attempt asks, and most ask of the URL itself: no need to parse it twice.
        if original == url { return Origin(url) != nil }
        guard let from = Origin(original), let to = Origin(url) else { return false }
        return from == to
    }

    /// Whether a request body survives the redirect: 307 and 308 keep the method (RFC 9110
    /// §15.4), the others turn a POST into a GET.
    static func keepsBody(status: Int) -> Bool {
        status == 307 || status == 308
    }

    /// Scheme, host and port, lowercased, with the scheme's default port filled in.
    struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: String) {
            guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = parts.host?.lowercased(), !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = parts.port ?? (scheme == "https" ? 443 : 80)
        }
    }
}
