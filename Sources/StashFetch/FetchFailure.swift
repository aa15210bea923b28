import CCurl
import Foundation
import StashCore

/// Why one attempt failed and what that means for the next: retry, wait for the network, or
/// give up. Every CURLcode, HTTP status and failed system call is classified here and nowhere else.
struct FetchFailure: Error, Equatable {
    var error: DownloadError
    var retryable: Bool
    /// The failure looks like the network itself (no route, no answer); worth asking the
    /// network monitor before spending an attempt on it.
    var connectionClass: Bool
    /// Seconds the server asked us to wait (Retry-After), when it did.
    var retryAfterSeconds: Int?
    /// The file system is full: no attempt can succeed until space is freed, and the bytes
    /// already in the part file are worth keeping for then.
    var noSpace = false

    /// The event that ends a transfer giving up on this failure.
    var finalEvent: FetchEvent { noSpace ? .noSpace(error) : .failed(error) }

    /// Anything thrown while a transfer opens, writes or commits its file: failed system calls
    /// (which carry errno) are classified by `storage`, other errors are not retried.
    static func thrown(_ error: any Error) -> FetchFailure {
        switch error {
        case let call as SystemCallError:
            return storage(call)
        case let error as DownloadError:
            return FetchFailure(error: error, retryable: false, connectionClass: false)
        default:
            return FetchFailure(error: DownloadError(.internal, "\(error)"), retryable: false, connectionClass: false)
        }
    }

    /// A failed system call on the part file or its folders. None is retried: the disk does not
    /// get better by asking again soon, and a full one ends the transfer with `.noSpace`.
    static func storage(_ call: SystemCallError) -> FetchFailure {
        let code = call.errnoCode
        // Users and tests see this text in the download's error; keep its format stable.
        let failed = "\(call.call) '\(call.path)' failed: \(String(cString: strerror(code))) (errno \(code))"
        switch code {
        case ENOSPC, EDQUOT:
            return FetchFailure(
                error: DownloadError(.storage, "no space left on device writing '\(call.path)' (\(failed))"),
                retryable: false, connectionClass: false, noSpace: true)
        case ELOOP, ENOTDIR:
            // Every open inside an asset's folder uses O_NOFOLLOW, so these name what is in the way.
            return FetchFailure(
                error: DownloadError(.storage, "\(failed): a symlink or a file is where a folder or the part file belongs, and no symlink is followed there"),
                retryable: false, connectionClass: false)
        default:
            return FetchFailure(error: DownloadError(.storage, failed), retryable: false, connectionClass: false)
        }
    }

    /// `reusedConnection`: the attempt ran on a pooled connection, which an earlier response
    /// may have left in a bad state; whatever the code, it is retried on a new connection.
    static func curl(_ code: CURLcode, errorText: String, url: String, reusedConnection: Bool = false) -> FetchFailure {
        let detail = describe(reason: String(cString: curl_easy_strerror(code)), errorText: errorText)
        if reusedConnection {
            return FetchFailure(
                error: DownloadError(.network, "\(detail) on a connection reused from an earlier response (\(url)); retrying on a new connection"),
                retryable: true, connectionClass: false)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_OPERATION_TIMEDOUT, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
             CURLE_GOT_NOTHING:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: true, connectionClass: true)
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR:
            return FetchFailure(error: DownloadError(.network, "\(detail) (\(url))"), retryable: true, connectionClass: false)
        case CURLE_UNSUPPORTED_PROTOCOL where errorText.contains("HTTP/0.9"), CURLE_WEIRD_SERVER_REPLY:
            // The server's answer did not start with a status line: a broken server or a
            // connection left dirty, not a URL scheme stash refuses.
            return FetchFailure(
                error: DownloadError(.network, "the server's answer is not HTTP: \(detail) (\(url))"), retryable: true, connectionClass: false)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return FetchFailure(
                error: DownloadError(.validation, "only http and https URLs are fetched: \(detail) (\(url))"),
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

    /// One sentence from curl's two texts. Its error buffer says what its code's text says,
    /// for this transfer ("Could not resolve host: h" for "Couldn't resolve host name"), and
    /// often ends with that text ("Failed to connect to h port 1 after 0 ms: Couldn't connect
    /// to server"), which is then left out; the code's text is for an empty buffer.
    static func describe(reason: String, errorText: String) -> String {
        if errorText.isEmpty { return reason }
        if errorText.hasSuffix(": " + reason) { return String(errorText.dropLast(reason.count + 2)) }
        return errorText
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
