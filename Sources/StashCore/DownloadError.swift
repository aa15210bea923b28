/// Why a download failed or is held back. The kind tells a client what to do about it:
/// network errors are retried, HTTP errors name the status, storage and validation errors
/// need the user.
public struct DownloadError: Error, Equatable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: Int, Sendable, Codable {
        case none = 0
        case network = 1
        case http = 2
        case storage = 3
        case validation = 4
        case `internal` = 5

        public var name: String {
            switch self {
            case .none: return "none"
            case .network: return "network"
            case .http: return "http"
            case .storage: return "storage"
            case .validation: return "validation"
            case .internal: return "internal"
            }
        }
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status involved, 0 when none.
    public var httpStatus: Int

    public init(_ kind: Kind, _ message: String, httpStatus: Int = 0) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "\(kind.name) error: \(message)" }
}
