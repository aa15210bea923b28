import CCurl
import StashCore

/// Why one attempt failed and what that means for the next: retry, wait for the network, or
/// give up. Every CURLcode and HTTP status is classified here and nowhere else.
struct FetchFailure: Error, Equatable {
    var error: DownloadError
    var retryable: Bool
    /// The failure looks like the network itself (no route, no answer); worth asking the
    /// network monitor before spending an attempt on it.
    var connectionClass: Bool
    /// Seconds the server asked us to wait (Retry-After), when it did.
    var retryAfterSeconds: Int?

    static func curl(_ code: CURLcode, errorText: String, url: String) -> FetchFailure {
        let reason = String(cString: curl_easy_strerror(code))
        let detail = errorText.isEmpty || errorText == reason ? reason : "\(reason): \(errorText)"
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_OPERATION_TIMEDOUT, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
             CURLE_GOT_NOTHING:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: true, connectionClass: true)
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: true, connectionClass: false)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return FetchFailure(
                error: DownloadError(.validation, "only http and https URLs are fetched (also after redirects): \(detail) (\(url))"),
                retryable: false, connectionClass: false)
        case CURLE_URL_MALFORMAT:
            return FetchFailure(error: DownloadError(.validation, "\(detail) (\(url))"), retryable: false, connectionClass: false)
        case CURLE_TOO_MANY_REDIRECTS:
            return FetchFailure(error: DownloadError(.http, "\(detail) (\(url))"), retryable: false, connectionClass: false)
        case CURLE_WRITE_ERROR:
            return FetchFailure(error: DownloadError(.storage, "\(detail) (\(url))"), retryable: false, connectionClass: false)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: false, connectionClass: false)
        default:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: false, connectionClass: false)
        }
    }

    /// A final response that is neither a success nor a redirect curl followed.
    static func http(status: Int, reason: String, url: String, retryAfterSeconds: Int?) -> FetchFailure {
        let phrase = reason.isEmpty ? Self.standardReason(status) : reason
        let text = phrase.isEmpty ? "HTTP \(status) from \(url)" : "HTTP \(status) \(phrase) from \(url)"
        let retryable = status == 408 || status == 429 || (500...599).contains(status)
        let error: DownloadError
        if (300...399).contains(status) {
            error = DownloadError(.http, "\(text) without a Location to follow", httpStatus: status)
        } else {
            error = DownloadError(.http, text, httpStatus: status)
        }
        return FetchFailure(
            error: error, retryable: retryable, connectionClass: false,
            retryAfterSeconds: status == 429 || status == 503 ? retryAfterSeconds : nil)
    }

    /// HTTP/2 responses carry no reason phrase; messages still read better with one.
    private static func standardReason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 416: return "Range Not Satisfiable"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
