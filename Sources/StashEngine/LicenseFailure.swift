import StashCore

/// Why a licence exchange did not give keys, sorted by what the engine does about it.
enum LicenseFailure: Error, Equatable {
    /// The server answered and said no (a 4xx): a renewal refused this way is DRM_EXPIRED.
    case refused(String, httpStatus: Int)
    /// The server could not be reached or failed (network, 5xx after retries): try again later.
    case unreachable(String)
    /// The answer, or the service certificate, is not usable: the server or its set-up is wrong.
    case invalid(String)

    var message: String {
        switch self {
        case .refused(let message, _), .unreachable(let message), .invalid(let message): return message
        }
    }

    /// As a download's error: HTTP for a refusal (its status kept), network or validation.
    var downloadError: DownloadError {
        switch self {
        case .refused(let message, let status): return DownloadError(.http, message, httpStatus: status)
        case .unreachable(let message): return DownloadError(.network, message)
        case .invalid(let message): return DownloadError(.validation, message)
        }
    }

    /// As the answer to a client's licence operation.
    var stashError: StashError {
        switch self {
        case .refused(let message, _): return StashError(.permissionDenied, message)
        case .unreachable(let message): return StashError(.unavailable, message)
        case .invalid(let message): return StashError(.failedPrecondition, message)
        }
    }
}
