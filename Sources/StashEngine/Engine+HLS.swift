import Foundation
import StashCore
import StashFetch
import StashKeys

extension Engine {
    var hlsPreparation: HLSPreparation {
        HLSPreparation(fetch: fetch, keys: keys, licenses: licenses.client(config), retry: RetryPolicy(config),
                       lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    /// What the stream at `uri` offers (`stash plan`), sized for a time range when `start` or
    /// `end` is given; nothing is stored.
    package func manifestInfo(uri: String, headers: [HTTPHeader], start: Double? = nil, end: Double? = nil) async throws -> ManifestInfo {
        try DownloadRequestRules.validateURI(uri)
        try DownloadRequestRules.validateHeaders(headers)
        try HLSRules.validateRange(start: start, end: end)
        let preparation = hlsPreparation
        do {
            return try await preparation.manifest(uri: uri, headers: headers, start: start, end: end)
        } catch let error as DownloadError {
            // A stream that is not valid HLS is the caller's input; a server that fails is not.
            throw StashError(error.kind == .validation ? .invalidArgument : .unavailable, error.message)
        }
    }
}
