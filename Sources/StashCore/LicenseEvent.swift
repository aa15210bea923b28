/// Something that happened to a download's licence, told to subscribers. The message names
/// the server and the reason, never a key.
public struct LicenseEvent: Equatable, Sendable {
    public enum Kind: Int, Equatable, Sendable, CaseIterable {
        case downloaded = 1
        case renewed = 2
        /// The licence or its playback window ran out.
        case expired = 3
        /// The keys are deleted; the server's acknowledgement may come later (outbox).
        case released = 4
        /// A licence request failed; the message says why and what to do.
        case error = 5

        public var name: String {
            switch self {
            case .downloaded: return "LicenseDownloaded"
            case .renewed: return "LicenseRenewed"
            case .expired: return "LicenseExpired"
            case .released: return "LicenseReleased"
            case .error: return "LicenseError"
            }
        }
    }

    public var id: String
    public var kind: Kind
    public var message: String
    public var status: LicenseStatus?

    public init(id: String, kind: Kind, message: String = "", status: LicenseStatus? = nil) {
        self.id = id
        self.kind = kind
        self.message = message
        self.status = status
    }
}
