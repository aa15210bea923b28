import CCurl
import StashCore

extension Transfer {
    /// How an attempt ended: the body is whole, the server sent it elsewhere, or it failed.
    enum AttemptOutcome {
        case success
        case redirect(String, status: Int)
        case failure(FetchFailure)
    }

    /// How the attempt that `easy` ran ended, from libcurl's result and the response.
    func outcome(of easy: CurlEasy, code: CURLcode) -> AttemptOutcome {
        if let failure = abortFailure { return .failure(failure) }
        guard code == CURLE_OK else {
            var failure = FetchFailure.curl(code, errorText: easy.errorText, url: request.url)
            // A pooled connection can carry what the previous response left behind (a body
            // longer than its Content-Length): whatever failed there is retried once on a new
            // connection, and the message says which connection it was. No connection made is
            // not a pooled one either when making it failed (refused, not resolved).
            let connecting = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
            if !connecting, (try? easy.info(long: CURLINFO_NUM_CONNECTS)) == 0, !retriedOnFreshConnection {
                retriedOnFreshConnection = true
                freshConnection = true
                failure = .curl(code, errorText: easy.errorText, url: request.url, reusedConnection: true)
            }
            return .failure(failure)
        }
        decideBody()
        if let failure = abortFailure { return .failure(failure) }
        let status = (try? easy.info(long: CURLINFO_RESPONSE_CODE)) ?? response.status
        effectiveURL = try? easy.info(string: CURLINFO_EFFECTIVE_URL)
        if (200...299).contains(status) { return .success }
        if (300...399).contains(status), let location = try? easy.info(string: CURLINFO_REDIRECT_URL), !location.isEmpty {
            return .redirect(location, status: status)
        }
        if status == 416, requestedFrom > 0, request.range == nil, let file = body {
            // The part file may already hold the whole resource (killed just before the rename).
            if let size = response.contentRange?.size, size == file.size {
                totalBytes = size
                return .success
            }
            do { try file.truncate() } catch {
                return .failure(.thrown(error))
            }
            return .failure(FetchFailure(
                error: DownloadError(.http, "HTTP 416 from \(request.url): part file of \(requestedFrom) bytes does not fit the resource; restarting from zero", httpStatus: 416),
                retryable: true, connectionClass: false))
        }
        return .failure(.http(
            status: status, reason: response.reason, url: request.url,
            retryAfterSeconds: response.retryAfterSeconds))
    }
}
