import Foundation

/// How an app's protected stream gets its content keys: the licence server to ask, with the
/// app's headers, content id and service certificate. Stored with the download, so renewals
/// and releases after a restart reach the same server the same way.
public struct DRMParams: Equatable, Sendable, Codable {
    /// The licence exchanges stash speaks.
    public enum Kind: String, Equatable, Sendable, CaseIterable, Codable {
        /// W3C EME ClearKey licences (JSON) over HTTP POST; PROTOCOL.md describes the exchange.
        case clearkey
    }

    public var kind: Kind
    /// Absolute http(s) URL the licence requests are POSTed to.
    public var licenseServer: String
    /// Sent with every licence request (and the certificate request), e.g. an auth token.
    public var headers: [HTTPHeader]
    /// The app's content id, sent as `content_id`; empty sends none.
    public var contentID: String
    /// Where the service certificate is; empty for none. Its SHA-256 goes with each request.
    public var certificateURL: String

    public init(kind: Kind = .clearkey, licenseServer: String, headers: [HTTPHeader] = [], contentID: String = "",
                certificateURL: String = "") {
        self.kind = kind
        self.licenseServer = licenseServer
        self.headers = headers
        self.contentID = contentID
        self.certificateURL = certificateURL
    }
}
