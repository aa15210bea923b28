/// The public error of every stash operation: a code and a message that names the field,
/// the value and the limit. It maps one-to-one onto the wire `Status` (StashWire does that).
public struct StashError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Raw values equal the wire `StatusCode` numbers.
    public enum Code: Int, Sendable, CaseIterable {
        case ok = 0
        case invalidArgument = 1
        case notFound = 2
        case alreadyExists = 3
        case failedPrecondition = 4
        case permissionDenied = 5
        case unimplemented = 6
        case `internal` = 7
        case unavailable = 8
        case resourceExhausted = 9

        public var name: String {
            switch self {
            case .ok: return "OK"
            case .invalidArgument: return "INVALID_ARGUMENT"
            case .notFound: return "NOT_FOUND"
            case .alreadyExists: return "ALREADY_EXISTS"
            case .failedPrecondition: return "FAILED_PRECONDITION"
            case .permissionDenied: return "PERMISSION_DENIED"
            case .unimplemented: return "UNIMPLEMENTED"
            case .internal: return "INTERNAL"
            case .unavailable: return "UNAVAILABLE"
            case .resourceExhausted: return "RESOURCE_EXHAUSTED"
            }
        }
    }

    public var code: Code
    public var message: String
    /// True when a client library made this error because it could not reach the daemon, or
    /// lost the connection before the answer; false for a status the daemon sent. Both are
    /// UNAVAILABLE, but only this one is a reason to start the daemon: the daemon answers
    /// UNAVAILABLE itself when a server it needs (a playlist's, a licence server) is down.
    public var isConnectionFailure = false

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name): \(message)" }

    package static func invalidArgument(_ message: String) -> StashError { .init(.invalidArgument, message) }
    package static func notFound(id: String) -> StashError { .init(.notFound, "no download with id '\(id)'") }

    /// UNAVAILABLE made by a client: the daemon cannot be reached, or the connection to it
    /// closed before the answer.
    package static func connectionFailure(_ message: String) -> StashError {
        var error = StashError(.unavailable, message)
        error.isConnectionFailure = true
        return error
    }
}
